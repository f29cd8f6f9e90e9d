#!/usr/bin/env python3
"""Hang reports of tern-run, end to end: the ranks are hang_prog (an MPI
program that hangs on purpose, see its header), the reports come at
--timeout, on SIGUSR1 and from `tern-run --status` run by another process.

    status_test.py --tern-run PATH --prog PATH TEST

No sleep stands in for a condition: the tests wait for the ranks' "ready"
lines, then ask `tern-run --status` until the state they expect shows (a
rank prints "ready" just before its call), with a deadline.  Every job
runs with XDG_RUNTIME_DIR set to a fresh private directory, so its
control socket is found there."""
import argparse
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

ARGS = None
ENV = None


class Failure(Exception):
    pass


def check(cond, what, text=None):
    if not cond:
        msg = "CHECK failed: " + what
        if text is not None:
            msg += "\n--- text:\n" + text[-6000:]
        raise Failure(msg)


def status(*args, env=None):
    """Run tern-run --status ARGS; (rc, stdout, stderr)."""
    p = subprocess.run([ARGS.tern_run, "--status"] + [str(a) for a in args],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env or ENV, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


class Job:
    """A tern-run job in the background; stderr goes to a file."""

    def __init__(self, nranks, mode, env=None, extra=()):
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen([ARGS.tern_run] + list(extra) +
                                  ["-n", str(nranks), ARGS.prog, mode],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=self.err, env=env or ENV)
        self.pids = {}
        deadline = time.monotonic() + 60
        while len(self.pids) < nranks:
            line = self.p.stdout.readline().decode()
            if line == "" or time.monotonic() > deadline:
                self.p.kill()
                raise Failure("job ended before all ranks were ready: rc %s\n%s" %
                              (self.p.wait(), self.stderr()))
            m = re.match(r"ready (\d+) (\d+)$", line.strip())
            if m:
                self.pids[int(m.group(1))] = int(m.group(2))

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def wait_status(self, patterns, secs=30):
        """Ask --status until every pattern matches the report; the report."""
        deadline = time.monotonic() + secs
        out = ""
        while time.monotonic() < deadline:
            rc, out, err = status(self.p.pid)
            if rc == 0 and all(re.search(p, out, re.M) for p in patterns):
                return out
            time.sleep(0.05)
        raise Failure("the report never showed %s" % patterns + "\n--- last:\n" + out)

    def end(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.communicate(timeout=30)
        return self.p.returncode


def rank_line(r, pid, rest):
    return r"^ *(tern-run: +)?rank %d \(pid %d on [^)]+\): %s" % (r, pid, rest)


FOR = r" for \d+\.\d s"


def three_patterns(job, prefix=""):
    p = job.pids
    return [
        rank_line(0, p[0], re.escape("in MPI_Recv(comm=MPI_COMM_WORLD, source=2, tag=7, "
                                     "count=1 x MPI_INT (4 B))") + FOR + "$"),
        r"^ *(tern-run: +)?  pending recv: source=2 tag=7 count=1 \(4 B, 0 B in\) "
        r"comm=MPI_COMM_WORLD$",
        rank_line(1, p[1], re.escape("in MPI_Barrier(comm=MPI_COMM_WORLD)") + FOR + "$"),
        rank_line(2, p[2], r"not in an MPI call \(computing\)" + FOR + "; last call " +
                  re.escape("MPI_Send(comm=MPI_COMM_WORLD, dest=1, tag=9, count=1 x MPI_INT)")
                  + "$"),
    ]


def check_all(patterns, text, what):
    for pat in patterns:
        check(re.search(pat, text, re.M) is not None, "%s: %s" % (what, pat), text)


# ------------------------------------------------------------------ tests
def test_timeout():
    """--timeout 3: the report names each rank's call, then the job ends."""
    t0 = time.monotonic()
    p = subprocess.run([ARGS.tern_run, "--timeout", "3", "-n", "3", ARGS.prog, "three"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=ENV, timeout=60)
    err = p.stderr.decode(errors="replace")
    out = p.stdout.decode()
    check(p.returncode == 124, "exit 124 (rc %d)" % p.returncode, err)
    pids = dict((int(m.group(1)), int(m.group(2)))
                for m in re.finditer(r"^ready (\d+) (\d+)$", out, re.M))
    check(sorted(pids) == [0, 1, 2], "three ranks were ready", out)
    lines = err.splitlines()
    i = lines.index("tern-run: job timed out after 3 s") if \
        "tern-run: job timed out after 3 s" in lines else -1
    check(0 <= i < len(lines) - 1 and
          lines[i + 1] == "tern-run: where the ranks are (at the timeout):",
          "the report follows the timeout line", err)

    class J:
        pass
    j = J()
    j.pids = pids
    check_all(three_patterns(j), err, "timeout report")
    check(time.monotonic() - t0 < 15, "ended promptly", err)


def test_sigusr1():
    """SIGUSR1 prints the report on stderr; the job keeps running."""
    job = Job(3, "three")
    try:
        pats = three_patterns(job)
        job.wait_status(pats)
        before = job.stderr()
        job.p.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            err = job.stderr()[len(before):]
            if re.search(pats[-1], err, re.M):
                break
            time.sleep(0.05)
        err = job.stderr()[len(before):]
        check(err.startswith("tern-run: where the ranks are (SIGUSR1):\n"), "report heading", err)
        check_all(pats, err, "SIGUSR1 report")
        check(job.p.poll() is None, "the job keeps running after SIGUSR1", err)
        for pid in job.pids.values():
            os.kill(pid, 0)         # raises if a rank is gone
        # and another report the same way, still running
        job.wait_status(pats)
    finally:
        rc = job.end()
    check(rc == 143, "SIGTERM then ends it (rc %d)" % rc)


def test_status():
    """tern-run --status PID and --status from another process."""
    job = Job(3, "three")
    try:
        pats = three_patterns(job)
        out = job.wait_status(pats)
        check(out.startswith("tern-run pid %d: 3 ranks of %s on " %
                             (job.p.pid, os.path.basename(ARGS.prog))),
              "summary line first", out)
        rc, out, err = status()
        check(rc == 0, "--status without a PID finds the job", out + err)
        check("tern-run pid %d: 3 ranks" % job.p.pid in out, "our job among those listed",
              out)
        check_all(pats, out, "--status report")
        # --status=PID is the same
        p = subprocess.run([ARGS.tern_run, "--status=%d" % job.p.pid], env=ENV,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        check(p.returncode == 0 and "rank 0 (pid %d" % job.pids[0] in p.stdout.decode(),
              "--status=PID", p.stdout.decode() + p.stderr.decode())
    finally:
        job.end()
    # the socket is gone with the job
    sock = os.path.join(ENV["XDG_RUNTIME_DIR"], "tern", "run-%d.sock" % job.p.pid)
    check(not os.path.exists(sock), "socket removed at the end")
    rc, out, err = status(job.p.pid)
    check(rc == 1 and "--status %d: " % job.p.pid in err, "a finished job is not found",
          out + err)
    rc, out, err = status("x1")
    check(rc == 2 and "bad PID" in err, "bad PID refused", err)
    rc, out, err = status(1, 2)
    check(rc == 2, "two PIDs refused", err)


def test_waitall():
    """Pending requests of a rank in MPI_Waitall on two receives."""
    job = Job(2, "waitall")
    try:
        p = job.pids
        out = job.wait_status([
            rank_line(0, p[0], re.escape("in MPI_Waitall(count=2)") + FOR + "$"),
            rank_line(1, p[1], r"in MPI_Recv\(comm=comm#\d+ 'side' \(rank 1 of 2\), "
                      r"source=0, tag=4, count=1 x MPI_INT \(4 B\)\)" + FOR + "$"),
            # rank 0's answer (a loaded machine may not give it to the first ask)
            r"^ +pending recv: source=1 tag=5 ",
        ])
        lines = out.splitlines()
        r0 = [i for i, l in enumerate(lines) if "rank 0 (pid" in l][0]
        pend = lines[r0 + 1:r0 + 3]
        check(re.fullmatch(r" +pending recv: source=1 tag=5 count=1 \(4 B, 0 B in\) "
                           r"comm=MPI_COMM_WORLD", pend[0]) is not None, "first Irecv", out)
        check(re.fullmatch(r" +pending recv: source=MPI_ANY_SOURCE tag=6 count=3 "
                           r"\(24 B, 0 B in\) comm=comm#\d+", pend[1]) is not None,
              "second Irecv", out)
        check("rank 1 (pid" in lines[r0 + 3], "exactly two requests listed for rank 0", out)
    finally:
        job.end()


def test_finalized():
    """After MPI_Finalize, and a rank that has exited."""
    job = Job(2, "done")
    try:
        p = job.pids
        job.wait_status([
            rank_line(0, p[0], r"after MPI_Finalize" + FOR + "$"),
            rank_line(1, p[1], r"exited with status 0$"),
        ])
    finally:
        job.end()


def test_off():
    """TERN_STATUS=0: the ranks publish nothing; no report at the timeout."""
    env = dict(ENV, TERN_STATUS="0")
    job = Job(2, "waitall", env=env)
    try:
        job.wait_status([rank_line(r, job.pids[r], r"publishes no status \(") + ".*$"
                         for r in (0, 1)])
    finally:
        job.end()
    p = subprocess.run([ARGS.tern_run, "--timeout", "1", "-n", "2", ARGS.prog, "waitall"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=60)
    err = p.stderr.decode()
    check(p.returncode == 124 and "where the ranks are" not in err,
          "no report when no rank publishes", err)


def test_unsafe_dir():
    """A socket directory others may enter is not used (nor trusted by the
    client): the job falls back to /tmp/tern-<uid>, --status still finds it."""
    xdg = tempfile.mkdtemp(prefix="tern-status-xdg-")
    try:
        os.mkdir(os.path.join(xdg, "tern"), 0o755)
        os.chmod(os.path.join(xdg, "tern"), 0o755)
        env = dict(ENV, XDG_RUNTIME_DIR=xdg)
        job = Job(2, "waitall", env=env, extra=["-v"])
        try:
            err = job.stderr()
            check("others may enter it; not used for the control socket" in err,
                  "the server refused the directory", err)
            rc, out, err = status(job.p.pid, env=env)
            check(rc == 0 and "rank 0 (pid %d" % job.pids[0] in out,
                  "found in /tmp/tern-<uid>", out + err)
            check("ignoring %s/tern: others may enter it" % xdg in err,
                  "the client says which directory it ignored", err)
            check(not os.listdir(os.path.join(xdg, "tern")), "nothing made in it")
        finally:
            job.end()
    finally:
        shutil.rmtree(xdg)


def main():
    global ARGS, ENV
    ap = argparse.ArgumentParser()
    ap.add_argument("--tern-run", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("test")
    ARGS = ap.parse_args()
    ARGS.tern_run = os.path.abspath(ARGS.tern_run)
    ARGS.prog = os.path.abspath(ARGS.prog)
    fn = globals().get("test_" + ARGS.test)
    if fn is None:
        print("unknown test " + ARGS.test, file=sys.stderr)
        return 2
    xdg = tempfile.mkdtemp(prefix="tern-status-")
    os.chmod(xdg, stat.S_IRWXU)
    ENV = dict(os.environ, XDG_RUNTIME_DIR=xdg)
    ENV.pop("TERN_STATUS", None)
    try:
        fn()
    except Failure as e:
        print("status.%s: %s" % (ARGS.test, e), file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(xdg, ignore_errors=True)
    print("status.%s: ok" % ARGS.test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
