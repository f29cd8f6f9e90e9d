"""What the trace tests share: their arguments (args()), failures
collected by check(), commands run by run(), the traced 3-rank
trace_traffic job they all start from, and the verdict line CTest looks
for."""
import argparse
import glob
import os
import subprocess

FAILS = []


def args(*more):
    """--bin (the build's bin directory) and --prog (the traced program),
    both required, and the further required options named in more."""
    ap = argparse.ArgumentParser()
    for name in ("--bin", "--prog") + more:
        ap.add_argument(name, required=True)
    return ap.parse_args()


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(args, env=e, capture_output=True, text=True, timeout=timeout)


def traced_job(bin_dir, prog, tdir, nprocs=3, done="trace_traffic: done", env=None):
    """Run prog (trace_traffic, or what prints done) with TERN_TRACE=tdir
    and env; its rank files, sorted (an empty list, with a failure
    recorded, when the job or its files are not what they should be)."""
    e = {"TERN_TRACE": tdir}
    e.update(env or {})
    p = run([os.path.join(bin_dir, "tern-run"), "-n", str(nprocs), prog], e)
    check(p.returncode == 0 and done in p.stdout,
          "traced job ran (rc %d): %s" % (p.returncode, p.stderr[-500:]))
    files = sorted(glob.glob(os.path.join(tdir, "*.ttr")))
    check(len(files) == nprocs, "%d trace files, got %d" % (nprocs, len(files)))
    return files if len(files) == nprocs else []


def verdict(name):
    """Print the line the test's PASS_REGULAR_EXPRESSION wants; exit code."""
    if FAILS:
        print("%s: %d failures" % (name, len(FAILS)))
        return 1
    print("%s: ok" % name)
    return 0
