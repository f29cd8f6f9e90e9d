#!/usr/bin/env python3
"""Check Tern's one-way layering (DESIGN.md): a layer may include only its
own headers and those of the layers below it.

    mpi      -> core, runtime, xport, base
    (tern/ is the public tools header in include/, usable by all)
    core     -> core, runtime, xport, base     (core = p2p, dt, coll, comm, rma)
    runtime  -> runtime, xport, base
    xport    -> xport, base
    base     -> base
Stand-alone tools include nothing of the library (no layer, no tern/ tools
header, no mpi.h): tools/tern-sim (docs/sim.md), tools/tern-wire.
Exits non-zero listing every violating #include."""
import os
import re
import sys

LEVEL = {"tern": 0, "base": 0, "xport": 1, "runtime": 2, "p2p": 3, "dt": 3, "coll": 3, "comm": 3,
         "rma": 3, "mpi": 4}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]')
STANDALONE = ["tools/tern-sim", "tools/tern-wire"]


def check_standalone(top, bad):
    """Files of a stand-alone tool include their own headers and the C
    library's only; returns how many includes were checked."""
    checked = 0
    for tool in STANDALONE:
        for dirpath, _, files in os.walk(os.path.join(top, tool)):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        m = ANY_INCLUDE.match(line)
                        if not m:
                            continue
                        checked += 1
                        target = m.group(1)
                        first = target.split("/")[0]
                        if "/" in target and (first in LEVEL or first == "tern") or target == "mpi.h":
                            bad.append(f"{path}:{n}: {tool} is stand-alone: no {target}")
    return checked


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    bad = []
    checked = 0
    for dirpath, _, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        layer = rel.split(os.sep)[0]
        if layer not in LEVEL:
            continue
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    checked += 1
                    if target not in LEVEL:
                        bad.append(f"{path}:{n}: includes unknown layer '{target}'")
                    elif LEVEL[target] > LEVEL[layer]:
                        bad.append(f"{path}:{n}: {layer} must not include {target}/ "
                                   f"(higher layer)")
    checked += check_standalone(os.path.join(root, ".."), bad)
    for b in bad:
        print(b)
    print(f"layering: {checked} includes checked, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
