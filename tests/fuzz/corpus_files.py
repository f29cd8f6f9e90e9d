"""Shared by the gen_*_corpus.py scripts: write a dict of seeds, one file
per seed named by its key, into the directory given as the only argument."""
import os
import sys


def write_seeds(seeds):
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
