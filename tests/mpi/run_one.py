#!/usr/bin/env python3
"""Runner for the MPI test programs listed in tests/mpi/testlist.

Testlist format: one run per line, '#' starts a comment, fields are split
like a shell command line (so a regex with spaces can be quoted):

    name nprocs [option]...

  name                the program (tests/mpi/<name>.c)
  nprocs              number of ranks
  env=K=V             environment variable for the job (repeatable)
  expect_rc=N         expected exit code of the job (N or 'nonzero');
                      without it the job must exit 0 and print " No Errors"
  expect_stderr=RE    regex (Python re.search, MULTILINE) that stderr must match
  ompi_stderr=RE      replaces expect_stderr when running under Open MPI/MPICH
  timeout=S           seconds (default 60) given to the launcher (--timeout)
  launcher=none       run the program directly, without launcher (singleton);
                      nprocs must be 1
  tern_only           only meaningful on Tern (skipped by run_openmpi.sh)
  ompi_xfail=WHY      known to fail on Open MPI because Open MPI deviates from
                      the standard (reported as XFAIL there, still run on Tern)
  suffix=S            explicit suffix of the test name

The CTest name is mpi.<name>.<nprocs>[.<suffix>]; without suffix= the
suffix is derived from launcher=none ('nolauncher') and the env settings
(e.g. env=TERN_SHM_CMA=0 -> 'shm_cma_0').

Modes:
  run_one.py --list-cmake TESTLIST
        print "id|name|timeout|nprocs" per line (used by CMakeLists.txt)
  run_one.py --launcher TERN_RUN --testlist TESTLIST --test ID --prog PATH
             [--env K=V]... [--launcher-arg ARG]...
        run one entry with tern-run (used by CTest); --env adds to the job's
        environment (the entry's own env= wins), --launcher-arg passes
        options to tern-run (e.g. --netns for the suite across namespaces)
  run_one.py --impl openmpi|mpich --bindir DIR --testlist TESTLIST [--only RE]
        run every entry that is not tern_only with that MPI's mpirun, print
        a summary (used by run_openmpi.sh)
"""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time

DEFAULT_TIMEOUT = 60
GRACE = 15  # seconds beyond the launcher timeout before the runner kills it


class Entry:
    def __init__(self, lineno, line):
        self.lineno = lineno
        self.line = line
        f = shlex.split(line, comments=True)
        if len(f) < 2:
            raise ValueError("line %d: need 'name nprocs'" % lineno)
        self.name = f[0]
        if not re.fullmatch(r"[A-Za-z0-9_]+", self.name):
            raise ValueError("line %d: bad program name %r" % (lineno, self.name))
        try:
            self.nprocs = int(f[1])
        except ValueError:
            raise ValueError("line %d: nprocs %r is not a number" % (lineno, f[1]))
        self.env = []
        self.expect_rc = None
        self.expect_stderr = None
        self.ompi_stderr = None
        self.timeout = DEFAULT_TIMEOUT
        self.no_launcher = False
        self.tern_only = False
        self.ompi_xfail = None
        self.suffix = None
        for opt in f[2:]:
            key, eq, val = opt.partition("=")
            if key == "env" and "=" in val:
                k, _, v = val.partition("=")
                self.env.append((k, v))
            elif key == "expect_rc" and eq:
                if val != "nonzero" and not re.fullmatch(r"-?\d+", val):
                    raise ValueError("line %d: expect_rc=%s" % (lineno, val))
                self.expect_rc = val
            elif key == "expect_stderr" and eq:
                re.compile(val)
                self.expect_stderr = val
            elif key == "ompi_stderr" and eq:
                re.compile(val)
                self.ompi_stderr = val
            elif key == "timeout" and eq:
                self.timeout = int(val)
            elif key == "launcher" and val == "none":
                self.no_launcher = True
            elif key == "tern_only" and not eq:
                self.tern_only = True
            elif key == "ompi_xfail" and eq:
                self.ompi_xfail = val
            elif key == "suffix" and eq:
                self.suffix = val
            else:
                raise ValueError("line %d: unknown option %r" % (lineno, opt))
        if self.no_launcher and self.nprocs != 1:
            raise ValueError("line %d: launcher=none needs nprocs 1" % lineno)
        if self.nprocs < 1:
            raise ValueError("line %d: nprocs must be >= 1" % lineno)
        suffix = self.suffix
        if suffix is None:
            parts = []
            if self.no_launcher:
                parts.append("nolauncher")
            for k, v in self.env:
                k = re.sub(r"^(TERN|MTEST)_", "", k)
                parts.append(re.sub(r"[^a-z0-9]+", "_", (k + "_" + v).lower()).strip("_"))
            suffix = ".".join(parts)
        self.id = "mpi.%s.%d" % (self.name, self.nprocs) + ("." + suffix if suffix else "")


def parse(path):
    entries = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            entries.append(Entry(lineno, line.rstrip("\n")))
    seen = {}
    for e in entries:
        if e.id in seen:
            raise ValueError("lines %d and %d give the same test name %s (add suffix=)"
                             % (seen[e.id], e.lineno, e.id))
        seen[e.id] = e.lineno
    return entries


def run_job(cmd, env, timeout):
    """Run cmd in its own process group; returns (rc, out, err, secs, timed_out)."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as ex:
        return 127, "", "cannot start %s: %s" % (cmd[0], ex), 0.0, False
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, err = p.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = b"", b""
    # Leftover processes of the job (launcher bugs, forked children) must not
    # outlive the test.
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    secs = time.monotonic() - t0
    return (p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
            secs, timed_out)


def verdict(e, rc, out, err, timed_out, stderr_re):
    """Returns a list of problems (empty when the run passed)."""
    problems = []
    if timed_out:
        problems.append("timed out (the runner killed the job)")
        return problems
    if e.expect_rc is None:
        if rc != 0:
            problems.append("exit code %s, expected 0" % rc)
        if not re.search(r"^ No Errors\s*$", out, re.M):
            problems.append("' No Errors' missing from stdout")
    elif e.expect_rc == "nonzero":
        if rc == 0:
            problems.append("exit code 0, expected non-zero")
    elif rc != int(e.expect_rc):
        problems.append("exit code %s, expected %s" % (rc, e.expect_rc))
    if stderr_re and not re.search(stderr_re, err, re.M):
        problems.append("stderr does not match /%s/" % stderr_re)
    return problems


def tail(text, n=200):
    lines = text.splitlines()
    if len(lines) > n:
        lines = ["[... %d lines cut ...]" % (len(lines) - n)] + lines[-n:]
    return "\n".join(lines)


def report(e, cmd, env_added, rc, out, err, secs, problems):
    print("test:    %s  (testlist line %d: %s)" % (e.id, e.lineno, e.line.strip()))
    print("command: %s%s" % ("".join("%s=%s " % kv for kv in env_added),
                             " ".join(shlex.quote(c) for c in cmd)))
    print("result:  exit code %s after %.1f s" % (rc, secs))
    if problems:
        print("FAILED:  " + "; ".join(problems))
        print("----- stdout -----")
        print(tail(out))
        print("----- stderr -----")
        print(tail(err))
    else:
        print("PASSED")
        if out.strip():
            print("----- stdout -----")
            print(tail(out, 40))


def job_env(e, extra):
    env = dict(os.environ)
    added = list(e.env) + [("MTEST_NPROCS", str(e.nprocs))] + extra
    for k, v in added:
        env[k] = v
    return env, added


def run_tern(args):
    entries = {e.id: e for e in parse(args.testlist)}
    if args.test not in entries:
        print("no test %s in %s" % (args.test, args.testlist))
        return 2
    e = entries[args.test]
    extra = []
    for kv in args.env:
        if "=" not in kv:
            print("--env wants K=V, got %r" % kv)
            return 2
        k, v = kv.split("=", 1)
        if k not in (ek for ek, _ in e.env):
            extra.append((k, v))
    env, added = job_env(e, extra)
    if e.no_launcher:
        cmd = [args.prog]
    else:
        cmd = ([args.launcher] + args.launcher_arg +
               ["-n", str(e.nprocs), "--timeout", str(e.timeout), args.prog])
    rc, out, err, secs, to = run_job(cmd, env, e.timeout + GRACE)
    problems = verdict(e, rc, out, err, to, e.expect_stderr)
    report(e, cmd, added, rc, out, err, secs, problems)
    return 1 if problems else 0


def impl_cmd(impl, e, prog):
    if e.no_launcher:
        return [prog]
    names = [k for k, _ in e.env] + ["MTEST_NPROCS"]
    if impl == "openmpi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(e.nprocs)]
        for k in names:
            cmd += ["-x", k]
    else:
        cmd = ["mpirun.mpich", "-n", str(e.nprocs), "-genvlist", ",".join(names)]
    return cmd + [prog]


def run_impl(args):
    entries = parse(args.testlist)
    results = []
    seen_runs = set()
    t_all = time.monotonic()
    for e in entries:
        if args.only and not re.search(args.only, e.id):
            continue
        if e.tern_only:
            results.append((e.id, "SKIP", "tern_only", 0.0))
            continue
        # Lines that differ only in TERN_* settings are the same run elsewhere.
        key = (e.name, e.nprocs, e.no_launcher,
               tuple(kv for kv in e.env if not kv[0].startswith("TERN_")))
        if key in seen_runs:
            results.append((e.id, "SKIP", "same run without TERN_* settings", 0.0))
            continue
        seen_runs.add(key)
        prog = os.path.join(args.bindir, e.name)
        cmd = impl_cmd(args.impl, e, prog)
        env, added = job_env(e, [])
        rc, out, err, secs, to = run_job(cmd, env, e.timeout + GRACE)
        problems = verdict(e, rc, out, err, to, e.ompi_stderr or e.expect_stderr)
        if problems and e.ompi_xfail:
            status, why = "XFAIL", e.ompi_xfail
        elif not problems and e.ompi_xfail:
            status, why = "XPASS", e.ompi_xfail
        else:
            status, why = ("FAIL" if problems else "PASS"), "; ".join(problems)
        results.append((e.id, status, why, secs))
        print("%-5s %-55s %6.1fs  %s" % (status, e.id, secs, why), flush=True)
        if status == "FAIL" or (status == "XFAIL" and args.verbose):
            report(e, cmd, added, rc, out, err, secs, problems)
    counts = {}
    for _, st, _, _ in results:
        counts[st] = counts.get(st, 0) + 1
    print("\nsummary (%s): %s  in %.0f s" % (
        args.impl, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())),
        time.monotonic() - t_all))
    for tid, st, why, _ in results:
        if st in ("FAIL", "XFAIL", "XPASS"):
            print("  %-5s %s  %s" % (st, tid, why))
    return 1 if counts.get("FAIL") else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list-cmake", metavar="TESTLIST")
    ap.add_argument("--testlist")
    ap.add_argument("--launcher")
    ap.add_argument("--test")
    ap.add_argument("--prog")
    ap.add_argument("--impl", choices=["openmpi", "mpich"])
    ap.add_argument("--bindir")
    ap.add_argument("--only", help="regex on test ids (impl mode)")
    ap.add_argument("--env", action="append", default=[], metavar="K=V")
    ap.add_argument("--launcher-arg", action="append", default=[], metavar="ARG")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    try:
        if args.list_cmake:
            for e in parse(args.list_cmake):
                print("%s|%s|%d|%d" % (e.id, e.name, e.timeout, e.nprocs))
            return 0
        if args.impl:
            if not (args.bindir and args.testlist):
                ap.error("--impl needs --bindir and --testlist")
            return run_impl(args)
        if not (args.launcher and args.testlist and args.test and args.prog):
            ap.error("need --launcher, --testlist, --test and --prog")
        return run_tern(args)
    except ValueError as ex:
        print("testlist error: %s" % ex, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
