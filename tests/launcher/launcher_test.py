#!/usr/bin/env python3
"""Tests of tern-run driven from outside: exit statuses, the one-line death
messages, abort, timeout, output forwarding, environment, /dev/shm cleanup,
signal forwarding and many ranks on few cores.  The ranks are pmi_probe,
which speaks PMI-1 itself (no MPI library).

    launcher_test.py --tern-run PATH --probe PATH TEST
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ARGS = None
TERN_LINE = re.compile(r"^tern-run: ")


class Failure(Exception):
    pass


def check(cond, what, res=None):
    if not cond:
        msg = "CHECK failed: " + what
        if res is not None:
            msg += "\n--- rc: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
                res.returncode, res.stdout[-4000:], res.stderr[-4000:])
        raise Failure(msg)


class Result:
    def __init__(self, rc, out, err, secs):
        self.returncode, self.stdout, self.stderr, self.secs = rc, out, err, secs


def run(args, env=None, stdin=subprocess.DEVNULL, tern=None, timeout=60):
    """Run tern-run with args; return a Result."""
    cmd = [tern or ARGS.tern_run] + args
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=timeout)
    return Result(p.returncode, p.stdout.decode(errors="replace"),
                  p.stderr.decode(errors="replace"), time.monotonic() - t0)


def tern_lines(res):
    return [l for l in res.stderr.splitlines() if TERN_LINE.match(l)]


def expect_death(res, rc, pattern):
    """Exit status rc and exactly one tern-run line on stderr, matching."""
    check(res.returncode == rc, "exit status %d" % rc, res)
    lines = tern_lines(res)
    check(len(lines) == 1, "exactly one tern-run line", res)
    check(re.fullmatch(pattern, lines[0]) is not None,
          "message matches %r" % pattern, res)
    check(res.secs < 10, "job ended promptly (%.1f s)" % res.secs, res)


NO_PMI_WARN = re.compile(
    r"tern-run: warning: (ranks?) (\S+) of (\d+) never contacted tern-run's PMI "
    r"server: if (\S+) is an MPI program, (it|each) ran alone as a singleton "
    r"\(rank 0 of 1\), not as part of one job")
NO_PMI_HINT = re.compile(
    r"tern-run: hint: a program built with another MPI's mpicc \(Open MPI's\) "
    r"does that; build it with Tern's mpicc \(ldd (\S+) \| grep libmpi shows "
    r"which MPI it uses\)\. Not an MPI program\? Ignore this, or hide it with -q")


def expect_no_pmi_warning(res, ranks, n, prog, path):
    """Exit 0 and tern-run's two lines about ranks that never spoke PMI."""
    check(res.returncode == 0, "exit 0", res)
    lines = tern_lines(res)
    check(len(lines) == 2, "a warning and a hint, nothing else", res)
    w = NO_PMI_WARN.fullmatch(lines[0])
    check(w is not None, "the warning's wording", res)
    one = "," not in ranks and "-" not in ranks
    check(w.groups() == ("rank" if one else "ranks", ranks, str(n), prog,
                         "it" if one else "each"),
          "warning names ranks %s of %d and %s" % (ranks, n, prog), res)
    h = NO_PMI_HINT.fullmatch(lines[1])
    check(h is not None and h.group(1) == path, "the hint names " + path, res)


def gone(pid):
    """True when pid no longer runs (absent, or a zombie nobody reaped)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_gone(pids, secs):
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        if all(gone(p) for p in pids):
            return True
        time.sleep(0.05)
    return all(gone(p) for p in pids)


P = lambda: ARGS.probe


# ------------------------------------------------------------------ tests
def t_exchange(n):
    res = run(["-n", str(n), P(), "exchange"])
    check(res.returncode == 0, "exit 0", res)
    check(res.stderr == "", "nothing on stderr", res)
    got = sorted(res.stdout.splitlines())
    want = sorted("rank %d: exchange ok (%d ranks)" % (r, n) for r in range(n))
    check(got == want, "every rank reported ok", res)


def test_exchange_4():
    t_exchange(4)


def test_exchange_16():
    """16 ranks on (typically) 2 cores: oversubscribed, no binding."""
    t_exchange(16)
    res = run(["-v", "-n", "16", P(), "exchange"])
    check(res.returncode == 0, "exit 0 with -v", res)
    if os.cpu_count() < 16:
        check("not binding" in res.stderr, "no binding when oversubscribed", res)


def test_exchange_64():
    t_exchange(64)


def test_mpiexec_alias():
    d = os.path.dirname(ARGS.tern_run)
    for alias in ("mpiexec", "mpirun"):
        res = run(["-np", "2", P(), "exchange"], tern=os.path.join(d, alias))
        check(res.returncode == 0 and res.stdout.count("exchange ok") == 2,
              alias + " works", res)


def test_exit_status():
    res = run(["-n", "3", P(), "exit", "3", "1"])
    expect_death(res, 3, r"tern-run: rank 1 \(pid \d+\) exited with status 3")
    res = run(["-n", "2", P(), "exit", "255", "0"])
    expect_death(res, 255, r"tern-run: rank 0 \(pid \d+\) exited with status 255")
    res = run(["-n", "2", "sh", "-c", "exit 0"])
    expect_no_pmi_warning(res, "0-1", 2, "sh", shutil.which("sh"))
    # the rank's last words on stderr come before tern-run's line
    res = run(["-n", "3", "sh", "-c", "if [ $PMI_RANK = 1 ]; then "
               "echo last words >&2; exit 5; fi; exec sleep 100"])
    expect_death(res, 5, r"tern-run: rank 1 \(pid \d+\) exited with status 5")
    check(res.stderr.startswith("last words\ntern-run: rank 1"),
          "rank output first", res)


def test_signal_death():
    res = run(["-n", "3", P(), "signal", "SEGV", "2"])
    expect_death(res, 139,
                 r"tern-run: rank 2 \(pid \d+\) killed by signal 11 \(SIGSEGV\)")
    res = run(["-n", "2", P(), "signal", "KILL", "0"])
    expect_death(res, 137,
                 r"tern-run: rank 0 \(pid \d+\) killed by signal 9 \(SIGKILL\)")
    res = run(["-n", "2", P(), "signal", "ABRT", "1"])
    expect_death(res, 134,
                 r"tern-run: rank 1 \(pid \d+\) killed by signal 6 \(SIGABRT\)")


def test_no_finalize():
    res = run(["-n", "4", P(), "nofinalize", "3"])
    expect_death(res, 1, r"tern-run: rank 3 \(pid \d+\) exited without "
                 r"calling MPI_Finalize")
    res = run(["-n", "2", P(), "closepmi"])
    check(res.returncode == 0 and res.stdout.count("closed PMI") == 2,
          "closing the PMI socket after finalize is fine", res)


def test_early_exit():
    """A rank gone before PMI init (or after finalize) while the others wait
    for it in a barrier ends the job, whichever comes first."""
    for extra in (["1"], ["1", "0.5"], ["0", "0.2"]):
        who = extra[0]
        res = run(["-n", "3", P(), "early"] + extra)
        expect_death(res, 1, r"tern-run: rank %s \(pid \d+\) exited before "
                     r"calling MPI_Init while other ranks wait for it" % who)
    res = run(["-n", "3", P(), "afterfin", "2"])
    expect_death(res, 1, r"tern-run: rank 2 \(pid \d+\) exited after "
                 r"MPI_Finalize while other ranks wait for it")
    # ranks that never speak PMI, and ranks that finish together, end the
    # job well (with a warning about PMI: test_no_pmi)
    res = run(["-n", "2", "sh", "-c", "if [ $PMI_RANK = 1 ]; then exit 0; fi; "
               "sleep 0.3"])
    expect_no_pmi_warning(res, "0-1", 2, "sh", shutil.which("sh"))


def test_early_exit_mpi():
    """The same with the MPI library: rank 1 leaves before MPI_Init."""
    if not ARGS.mpi_prog:
        return
    res = run(["-n", "3", "sh", "-c", 'if [ "$PMI_RANK" = 1 ]; then exit 0; fi; '
               'exec "$0" 3', ARGS.mpi_prog])
    expect_death(res, 1, r"tern-run: rank 1 \(pid \d+\) exited before "
                 r"calling MPI_Init while other ranks wait for it")


def run_fake_server(env_extra, serve, timeout=30, gone=False):
    """Run the MPI program as rank 0 of 2 with PMI_FD on a socketpair whose
    other end serve(sock) handles (gone: is closed before the rank starts);
    return a Result."""
    import socket
    ours, theirs = socket.socketpair()
    env = dict(os.environ, PMI_FD=str(theirs.fileno()), PMI_RANK="0",
               PMI_SIZE="2", **env_extra)
    if gone:
        ours.close()
    t0 = time.monotonic()
    p = subprocess.Popen([ARGS.mpi_prog, "2"], env=env, pass_fds=[theirs.fileno()],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    theirs.close()
    try:
        serve(ours)
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise Failure("the rank hung: stderr %s" % err.decode(errors="replace"))
    finally:
        ours.close()
    return Result(p.returncode, out.decode(errors="replace"),
                  err.decode(errors="replace"), time.monotonic() - t0)


def test_pmi_client_timeout():
    """The library's PMI client gives up with a message: a server that never
    answers (TERN_PMI_TIMEOUT), a fence that never completes
    (TERN_PMI_FENCE_TIMEOUT)."""
    if not ARGS.mpi_prog:
        return
    res = run_fake_server({"TERN_PMI_TIMEOUT": "1"}, lambda s: None)
    check(res.returncode != 0 and res.returncode > 0, "rank failed, not killed", res)
    check(re.search(r"no response_to_init from the PMI server after 1 s "
                    r"\(server not answering\).*TERN_PMI_TIMEOUT", res.stderr)
          is not None, "message names the limit", res)
    check(res.secs < 10, "gave up promptly (%.1f s)" % res.secs, res)

    env = dict(os.environ, TERN_PMI_FENCE_TIMEOUT="1")
    res = run(["-n", "2", "sh", "-c", 'if [ "$PMI_RANK" = 1 ]; then exec "$1" '
               'hang; fi; exec "$0" 2', ARGS.mpi_prog, P()], env=env, timeout=30)
    check(res.returncode != 0, "job failed", res)
    check(re.search(r"no barrier_out from the PMI server after 1 s \(some rank "
                    r"never entered the fence\).*TERN_PMI_FENCE_TIMEOUT",
                    res.stderr) is not None, "message names the fence limit", res)
    check(len(tern_lines(res)) == 1, "tern-run reports the rank", res)
    check(res.secs < 10, "ended promptly (%.1f s)" % res.secs, res)


def test_pmi_sigpipe():
    """A launcher gone before the rank writes to it: EPIPE and a message,
    not death by SIGPIPE."""
    if not ARGS.mpi_prog:
        return
    # gone before the rank starts, so that its first write meets no reader
    # (closed after the start, a fast rank may have written first)
    res = run_fake_server({}, lambda s: None, gone=True)
    check(res.returncode > 0, "exited with an error (not signal %d)" %
          -res.returncode, res)
    check("write to the PMI server failed: Broken pipe" in res.stderr,
          "says why", res)


GARBAGE = {
    "nocmd": ("no_cmd", re.escape("hello=world")),
    "words": ("field_without_equals", re.escape("hello world")),
    "nokey": ("field_without_equals", re.escape("cmd=put kvsname=x key value=1")),
    "binary": ("non_printable_bytes", re.escape("cmd=get_maxes ??")),
    "nul": ("non_printable_bytes", re.escape("cmd=get_maxes?junk")),
    "fields": ("too_many_fields", "cmd=put a=1 b=2 .*\\.\\.\\."),
    "long": ("line_too_long", "cmd=get key=a+\\.\\.\\."),
    "cutoff": ("request_cut_off_by_end_of_connection", "cmd=get_maxes"),
}


def test_pmi_garbage():
    """A request the server cannot parse gets cmd=error and ends the job
    with a message naming the rank."""
    for kind, (why, shown) in sorted(GARBAGE.items()):
        res = run(["-n", "3", P(), "garbage", kind])
        expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): bad PMI request: "
                     r"%s \('%s', \d+ bytes\)" % (why, shown))
        check(res.stdout == "reply: cmd=error rc=-1 msg=%s\n" % why,
              "%s: the rank got an error reply" % kind, res)


def test_pmi_limits():
    """The key-value space and the unread replies of a rank are bounded."""
    env = dict(os.environ, TERN_RUN_KVS_KEYS="20")
    res = run(["-n", "2", P(), "kvsfill", "10"], env=env)
    expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): PMI put of key 'k19' "
                 r"does not fit in the job's key-value space \(20 keys, \d+ "
                 r"bytes held; limits TERN_RUN_KVS_KEYS=20, "
                 r"TERN_RUN_KVS_BYTES=67108864\)")
    env = dict(os.environ, TERN_RUN_KVS_BYTES="2k")
    res = run(["-n", "2", P(), "kvsfill", "100"], env=env)
    expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): PMI put of key 'k19' "
                 r"does not fit .*TERN_RUN_KVS_BYTES=2048\)")
    res = run(["-n", "2", P(), "kvsfill", "1000"])
    expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): PMI put of key "
                 r"'k65535' does not fit .*")
    res = run(["-n", "2", P(), "flood", "100000"])
    expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): left more than "
                 r"1048576 bytes of PMI replies unread \(limit "
                 r"TERN_RUN_PMI_BACKLOG\)")
    env = dict(os.environ, TERN_RUN_PMI_BACKLOG="10k")
    res = run(["-n", "2", P(), "flood", "3000"], env=env)
    expect_death(res, 1, r"tern-run: rank 0 \(pid \d+\): left more than "
                 r"10240 bytes .*")
    env = dict(os.environ, TERN_RUN_PMI_BACKLOG="lots")
    res = run(["-n", "2", P(), "exchange"], env=env)
    check(res.returncode == 2 and len(tern_lines(res)) == 1, "bad limit", res)


def test_abort():
    res = run(["-n", "3", P(), "abort", "7", "1"])
    expect_death(res, 7, r"tern-run: rank 1 called MPI_Abort \(error code 7\)")
    check(res.stderr.startswith("rank 1: aborting\n"),
          "rank's last words come before the abort message", res)
    res = run(["-n", "2", P(), "abort", "0", "0"])
    expect_death(res, 1, r"tern-run: rank 0 called MPI_Abort \(error code 0\)")
    res = run(["-n", "2", P(), "abort", "300", "1"])
    expect_death(res, 1, r"tern-run: rank 1 called MPI_Abort \(error code 300\)")
    res = run(["-n", "2", P(), "abort", "none", "1"])
    expect_death(res, 1, r"tern-run: rank 1 called MPI_Abort \(error code 1\)")
    # Tern's own fatal error (a peer timeout, a fatal MPI error) is not MPI_Abort
    res = run(["-n", "2", P(), "iabort", "3", "1"])
    expect_death(res, 3, r"tern-run: rank 1 ended the job after an error \(exit code 3; "
                 r"its message is above\)")


def test_timeout():
    res = run(["--timeout", "1", "-n", "3", P(), "hang"])
    expect_death(res, 124, r"tern-run: job timed out after 1 s")
    check(res.secs < 6, "ended about 1 s in (%.1f s)" % res.secs, res)
    env = dict(os.environ, TERN_RUN_TIMEOUT="1")
    res = run(["-n", "2", P(), "hang"], env=env)
    expect_death(res, 124, r"tern-run: job timed out after 1 s")
    res = run(["--timeout=1", "-n", "2", "sh", "-c", "trap '' TERM; "
               "while :; do sleep 1; done"])
    expect_death(res, 124, r"tern-run: job timed out after 1 s")
    check(res.secs < 7, "SIGKILL after the grace period (%.1f s)" % res.secs, res)


LINE = re.compile(r"^rank (\d+) line (\d+) x+ end$")


def check_lines(text, n, lines, res, prefix=False):
    seen = {r: [] for r in range(n)}
    for l in text.splitlines():
        if prefix:
            m = re.match(r"^\[(\d+)\] (.*)$", l)
            check(m is not None, "tagged line: %r" % l[:80], res)
            tag, l = int(m.group(1)), m.group(2)
        m = LINE.match(l)
        check(m is not None, "whole line: %r" % l[:80], res)
        r = int(m.group(1))
        if prefix:
            check(tag == r, "tag matches rank", res)
        seen[r].append(int(m.group(2)))
    for r in range(n):
        check(seen[r] == list(range(lines)),
              "rank %d: %d lines in order" % (r, lines), res)


def test_output():
    res = run(["-n", "4", P(), "spam", "3000"])
    check(res.returncode == 0, "exit 0", res)
    check_lines(res.stdout, 4, 3000, res)
    check_lines(res.stderr, 4, 3000, res)


def test_stdout_closed():
    """`tern-run prog | head`: ranks get SIGPIPE, the job ends quietly;
    with their stdout on a pty (tern-run sends the signal) or a pipe."""
    for pty in ("1", "0"):
        p = subprocess.Popen([ARGS.tern_run, "-n", "2", "yes"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             env=dict(os.environ, TERN_RUN_PTY=pty))
        first = p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode()
        rc = p.wait(timeout=30)
        res = Result(rc, first.decode(), err, 0)
        check(first == b"y\n", "output arrived (TERN_RUN_PTY=%s)" % pty, res)
        check(rc == 141, "exit 141 (SIGPIPE; TERN_RUN_PTY=%s)" % pty, res)
        check(tern_lines(res) == [], "no message", res)


def test_tag_output():
    res = run(["-n", "3", "--tag-output", P(), "spam", "50"])
    check(res.returncode == 0, "exit 0", res)
    check_lines(res.stdout, 3, 50, res, prefix=True)
    res = run(["-n", "2", "--tag-output", "sh", "-c", "printf 'a\\nb'"])
    check(sorted(res.stdout.splitlines()) == ["[0] a", "[0] b", "[1] a", "[1] b"],
          "partial last line flushed and tagged", res)
    res = run(["-n", "1", "sh", "-c", "printf 'no newline'"])
    check(res.stdout == "no newline", "single rank output verbatim", res)


# a multi-host job on this machine: proxies forked as if on hosts a and b
FORK2 = ["--launcher", "fork", "-host", "a:2,b:2"]
STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\] (.*)$")


def check_words(res, n, lines):
    """Every "rank R word I" line of lastwords, once, in order per rank."""
    check("\r" not in res.stdout, "no carriage returns", res)
    got = {r: [] for r in range(n)}
    for l in res.stdout.splitlines():
        m = re.fullmatch(r"rank (\d+) word (\d+)", l)
        check(m is not None and int(m.group(1)) < n, "a whole line: %r" % l, res)
        got[int(m.group(1))].append(int(m.group(2)))
    for r in range(n):
        check(got[r] == list(range(lines)),
              "rank %d: all %d lines printed before the end" % (r, lines), res)


def test_last_words():
    """Lines printed with printf() and never flushed appear although the
    job ends by abort(), by SIGKILL or at --timeout: stdout is a pty, so
    stdio flushed each line.  Through a pipe (TERN_RUN_PTY=0) stdio keeps
    them, and they die with the rank: the control that this test can
    fail."""
    cases = (("abort", 134, r"tern-run: rank 0 \(pid \d+( on a)?\) killed by "
              r"signal 6 \(SIGABRT\)"),
             ("kill", 137, r"tern-run: rank 0 \(pid \d+( on a)?\) killed by "
              r"signal 9 \(SIGKILL\)"),
             ("hang", 124, r"tern-run: job timed out after 1 s"))
    for hosts in ([], FORK2):
        for how, rc, msg in cases:
            res = run(hosts + ["--timeout", "1", "-n", "4", P(), "lastwords",
                               how, "20"])
            if how == "hang":
                # the hang report may follow the line (launch.md)
                check(res.returncode == rc and tern_lines(res) != [] and
                      re.fullmatch(msg, tern_lines(res)[0]) is not None and
                      all(l.startswith(("tern-run: where the ranks are",
                                        "tern-run:   rank "))
                          for l in tern_lines(res)[1:]),
                      "timed out, then the hang report only", res)
            else:
                expect_death(res, rc, msg)
            check_words(res, 4, 20)
    env = dict(os.environ, TERN_RUN_PTY="0")
    for hosts in ([], FORK2):
        res = run(hosts + ["--timeout", "1", "-n", "4", P(), "lastwords",
                           "abort", "20"], env=env)
        expect_death(res, 134, cases[0][2])
        check(res.stdout == "", "control: through a pipe the lines are lost", res)


def test_pty():
    """Each rank's stdout is a raw pty (no \\r added), stderr a pipe;
    TERN_RUN_PTY=0 makes stdout a pipe; on every host of the job."""
    for hosts in ([], FORK2):
        res = run(hosts + ["-n", "4", P(), "tty"])
        check(res.returncode == 0, "exit 0", res)
        check(sorted(res.stdout.split("\n")) ==
              [""] + ["tty %d out=1 err=0 opost=0" % r for r in range(4)],
              "stdout a raw terminal, stderr not", res)
        res = run(hosts + ["-n", "4", P(), "tty"],
                  env=dict(os.environ, TERN_RUN_PTY="off"))
        check(res.returncode == 0, "exit 0", res)
        check(sorted(res.stdout.splitlines()) ==
              ["tty %d out=0 err=0 opost=-1" % r for r in range(4)],
              "TERN_RUN_PTY=off: a pipe", res)
    res = run(["-n", "1", "true"], env=dict(os.environ, TERN_RUN_PTY="maybe"))
    check(res.returncode == 2 and tern_lines(res) ==
          ["tern-run: bad TERN_RUN_PTY='maybe' (want 0 or 1)"], "bad value", res)


def strip_stamps(text, t0, t1, res):
    """Drop the time stamp of every line; each is between t0 and t1."""
    out = []
    lo = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t0 - 1))
    hi = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t1 + 1))
    for l in text.splitlines():
        m = STAMP.match(l)
        check(m is not None, "stamped line: %r" % l[:80], res)
        check(lo <= m.group(1)[:19] <= hi, "stamp %s in the job's time" %
              m.group(1), res)
        out.append(m.group(2))
    return "\n".join(out) + "\n"


def test_timestamp_output():
    """--timestamp-output: "[YYYY-MM-DD HH:MM:SS.mmm] " on every line of
    stdout and stderr, before the tag; on every host of the job."""
    for hosts in ([], FORK2):
        for tag in ([], ["--tag-output"]):
            t0 = time.time()
            res = run(hosts + ["-n", "4", "--timestamp-output"] + tag +
                      [P(), "spam", "50"])
            t1 = time.time()
            check(res.returncode == 0, "exit 0", res)
            for text in (res.stdout, res.stderr):
                check_lines(strip_stamps(text, t0, t1, res), 4, 50, res,
                            prefix=tag != [])
    # one rank: not raw any more, a partial last line is ended
    res = run(["-n", "1", "--timestamp-output", "sh", "-c", "printf 'a\\nb'"])
    check(res.returncode == 0 and
          [STAMP.match(l).group(2) for l in res.stdout.splitlines()] == ["a", "b"]
          and res.stdout.endswith("\n"), "single rank stamped", res)


def read_file(path):
    with open(path) as f:
        return f.read()


def test_output_filename():
    """--output-filename DIR: DIR/1/rank.N/stdout and stderr (N padded to
    the digits of the job size), as shown, also in a multi-host job (the
    head writes them); :nocopy, :nojobid; a DIR that cannot be made stops
    the job before any rank starts."""
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                       "tern-ofile-%d" % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for hosts in ([], FORK2):
            d = os.path.join(tmp, "a" if hosts == [] else "b")
            os.makedirs(os.path.join(d, "1", "rank.0"))
            with open(os.path.join(d, "1", "rank.0", "stdout"), "w") as f:
                f.write("old junk\n" * 1000)       # truncated
            res = run(hosts + ["-n", "4", "--tag-output", "--output-filename",
                               d, P(), "spam", "30"])
            check(res.returncode == 0, "exit 0", res)
            check_lines(res.stdout, 4, 30, res, prefix=True)   # still shown
            for r in range(4):
                for st in ("stdout", "stderr"):
                    text = read_file(os.path.join(d, "1", "rank.%d" % r, st))
                    check_lines(text.replace("[%d] " % r, "[0] ").replace(
                        "rank %d line" % r, "rank 0 line"), 1, 30, res,
                        prefix=True)
                    check(text.startswith("[%d] rank %d line 0 " % (r, r)),
                          "rank %d's %s holds its lines" % (r, st), res)
            check(sorted(os.listdir(os.path.join(d, "1"))) ==
                  ["rank.%d" % r for r in range(4)], "one directory per rank", res)
        # 10 ranks: two digits; nocopy shows nothing; nojobid
        d = os.path.join(tmp, "c")
        res = run(["-q", "-n", "10", "--output-filename", d + ":nocopy,NOJOBID",
                   P(), "env", "PMI_RANK"])
        check(res.returncode == 0 and res.stdout == "", "nocopy: nothing shown",
              res)
        check(sorted(os.listdir(d)) == ["rank.%02d" % r for r in range(10)],
              "nojobid, two digits", res)
        for r in range(10):
            check(read_file(os.path.join(d, "rank.%02d" % r, "stdout")) ==
                  "PMI_RANK=%d\n" % r, "rank %d's stdout file" % r, res)
            check(read_file(os.path.join(d, "rank.%02d" % r, "stderr")) == "",
                  "rank %d's empty stderr file" % r, res)
        # what a rank printed before abort() reaches the file too
        d = os.path.join(tmp, "d")
        res = run(["--output-filename", d + ":nocopy", "-n", "2", P(),
                   "lastwords", "abort", "5"])
        check(res.returncode == 134 and res.stdout == "", "abort, nocopy", res)
        check(read_file(os.path.join(d, "1", "rank.0", "stdout")) ==
              "".join("rank 0 word %d\n" % i for i in range(5)),
              "last words in the file", res)
        # refused before any rank starts
        marker = os.path.join(tmp, "started")
        blocker = os.path.join(tmp, "file")
        with open(blocker, "w") as f:
            f.write("x")
        for bad, why in ((blocker, "cannot create directory %s/1/rank.0: "
                          "Not a directory" % blocker),
                         (os.path.join(tmp, "e") + ":nocpy",
                          "--output-filename '%s/e:nocpy': unknown directive "
                          "'nocpy' (nocopy, nojobid)" % tmp)):
            res = run(["--output-filename", bad, "-n", "2", "sh", "-c",
                       "touch " + marker])
            check(res.returncode == 2 and len(tern_lines(res)) == 1 and
                  why in res.stderr, "refused: " + why, res)
            check(not os.path.exists(marker), "no rank started", res)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_long(res, n, lines, prefix):
    """Lines of longlines, each whole: its letters, its length, its end."""
    seen = {r: [] for r in range(n)}
    for l in res.stdout.split("\n")[:-1]:
        m = re.fullmatch(r"(\[\d+\] )?rank (\d+) long (\d+) (\d+) ([a-z]+) end",
                         l)
        check(m is not None, "whole line: %r...%r" % (l[:60], l[-20:]), res)
        r, i, ln = int(m.group(2)), int(m.group(3)), int(m.group(4))
        check((m.group(1) is not None) == prefix and
              (not prefix or m.group(1) == "[%d] " % r), "tag", res)
        check(m.group(5) == chr(97 + (r + i) % 26) * ln,
              "rank %d line %d intact (%d bytes)" % (r, i, ln), res)
        seen[r].append(i)
    for r in range(n):
        check(seen[r] == list(range(lines)), "rank %d: all lines" % r, res)


def test_long_lines():
    """Many ranks write lines of 100-200 KB at once, in writes of 1-8 KB:
    every line comes out whole (lines under 1 MiB never interleave)."""
    for hosts, tag in (([], []), (["--launcher", "fork", "-host",
                                   "a:2,b:2,c:2,d:2"], ["--tag-output"])):
        res = run(hosts + ["-n", "8"] + tag + [P(), "longlines", "12", "200000"])
        check(res.returncode == 0, "exit 0", res)
        check_long(res, 8, 12, tag != [])


def test_env():
    env = dict(os.environ, FROM_TERN="outer", KEEP_ME="kept", PMI_PORT="bogus:1",
               PMIX_RANK="9")
    res = run(["-n", "2", "-x", "FROM_TERN", "-x", "SETX=a=b", "-genv", "GV", "g v",
               "-env", "EV", "e", "--", P(), "env", "FROM_TERN", "SETX", "GV",
               "EV", "KEEP_ME", "PMI_PORT", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
               "PMI_FD", "PMI_JOBID"], env=env)
    check(res.returncode == 0, "exit 0", res)
    out = res.stdout.splitlines()
    for want in ("FROM_TERN=outer", "SETX=a=b", "GV=g v", "EV=e", "KEEP_ME=kept",
                 "PMI_PORT unset", "PMIX_RANK unset", "PMI_SIZE=2"):
        check(out.count(want) == 2, "both ranks see %r" % want, res)
    check(sorted(l for l in out if l.startswith("PMI_RANK=")) ==
          ["PMI_RANK=0", "PMI_RANK=1"], "PMI_RANK per rank", res)
    jobs = [l for l in out if l.startswith("PMI_JOBID=")]
    check(len(jobs) == 2 and jobs[0] == jobs[1] and
          re.fullmatch(r"PMI_JOBID=tern-\d+-[0-9a-f]{16}", jobs[0]) is not None,
          "PMI_JOBID is the kvsname", res)


def shm_files(res):
    return [l.split(" ", 1)[1] for l in res.stdout.splitlines()
            if l.startswith("created ")]


def test_shm_cleanup():
    other = "/dev/shm/tern-tern-1-notthisjob-probe"
    with open(other, "w"):
        pass
    try:
        for extra in (["KILL"], []):
            res = run(["-n", "3", P(), "shm"] + extra)
            files = shm_files(res)
            check(len(files) == 6, "ranks created their files", res)
            left = [f for f in files if os.path.exists(f)]
            check(left == [], "no file left behind: %s" % left, res)
            if extra:
                expect_death(res, 137, r"tern-run: rank 0 \(pid \d+\) killed by "
                             r"signal 9 \(SIGKILL\)")
            else:
                check(res.returncode == 0, "exit 0", res)
        check(os.path.exists(other), "another job's file is kept")
    finally:
        os.unlink(other)


def tern_shm_names():
    return set(n for n in os.listdir("/dev/shm") if n.startswith("tern-"))


def children_of(pid):
    """Pids whose parent is pid."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def test_shm_sigkill():
    """tern-run killed with SIGKILL while MPI ranks are in their shared-memory
    set-up (rank 0 has made the segment and waits in a fence for rank 1,
    which never comes) leaves nothing in /dev/shm and no rank behind."""
    if not ARGS.mpi_prog:
        return
    before = tern_shm_names()
    for kill_after in (0.5, 0.0):
        p, lines = start_job(["-n", "2", "sh", "-c", 'if [ "$PMI_RANK" = 1 ]; then '
                              'exec "$1" shmkeep; fi; exec "$0" 2', ARGS.mpi_prog,
                              P()], 1, "fenced ")
        pids = children_of(p.pid)
        time.sleep(kill_after)
        p.kill()
        p.wait()
        check(wait_gone(pids, 5), "ranks %s gone after tern-run's SIGKILL" % pids)
        left = tern_shm_names() - before
        for n in left:
            os.unlink("/dev/shm/" + n)
        check(not left, "nothing left in /dev/shm: %s" % sorted(left))
    # a normal job under tern-run makes no name in /dev/shm at all
    p = subprocess.Popen([ARGS.tern_run, "-n", "3", ARGS.mpi_prog, "3"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    seen = set()
    while p.poll() is None:
        seen |= tern_shm_names() - before
        time.sleep(0.002)
    res = finish(p)
    check(res.returncode == 0 and " No Errors" in res.stdout, "job ran", res)
    check(not seen, "no /dev/shm name during the job: %s" % sorted(seen), res)


def start_job(args, nlines, prefix):
    """Start tern-run; return (proc, lines) after nlines starting with prefix."""
    p = subprocess.Popen([ARGS.tern_run] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []
    while len(lines) < nlines:
        l = p.stdout.readline().decode()
        if l == "":
            p.kill()
            raise Failure("job ended early: rc %s, stderr %s" %
                          (p.wait(), p.stderr.read().decode()))
        if l.startswith(prefix):
            lines.append(l.split())
    return p, lines


def finish(p):
    out, err = p.communicate(timeout=30)
    return Result(p.returncode, out.decode(), err.decode(), 0)


def test_sigint():
    """Ctrl-C: SIGINT reaches ranks and what they forked; exit 130."""
    p, lines = start_job(["-n", "3", P(), "forkwait"], 3, "pids ")
    pids = [int(x) for l in lines for x in l[2:4]]
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    res = finish(p)
    check(res.returncode == 130, "exit 130", res)
    check(tern_lines(res) == [], "no death message for a forwarded signal", res)
    check(time.monotonic() - t0 < 2.8, "ended before any grace period", res)
    check(wait_gone(pids, 5), "ranks and their children are gone", res)

    # SIGTERM likewise: 128 + 15
    p, lines = start_job(["-n", "2", P(), "forkwait"], 2, "pids ")
    pids = [int(x) for l in lines for x in l[2:4]]
    p.send_signal(signal.SIGTERM)
    res = finish(p)
    check(res.returncode == 143, "exit 143 on SIGTERM", res)
    check(wait_gone(pids, 5), "ranks gone after SIGTERM", res)


def test_sigint_escalation():
    """Ranks that ignore SIGINT: SIGKILL after 3 s, or at a second Ctrl-C."""
    p, lines = start_job(["-n", "2", P(), "ignoreterm"], 2, "ready ")
    pids = [int(l[2]) for l in lines]
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    res = finish(p)
    secs = time.monotonic() - t0
    check(res.returncode == 130, "exit 130", res)
    check(2.9 < secs < 10, "SIGKILL after the 3 s grace (%.1f s)" % secs, res)
    check(wait_gone(pids, 5), "ranks gone", res)

    p, lines = start_job(["-n", "2", P(), "ignoreterm"], 2, "ready ")
    pids = [int(l[2]) for l in lines]
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    res = finish(p)
    secs = time.monotonic() - t0
    check(res.returncode == 130, "exit 130", res)
    check(secs < 2.8, "second Ctrl-C kills at once (%.1f s)" % secs, res)
    check(wait_gone(pids, 5), "ranks gone", res)


def cpu_lists(res):
    """{rank: Cpus_allowed_list} from lines 'R Cpus_allowed_list:\tLIST'."""
    got = {}
    for l in res.stdout.splitlines():
        f = l.split()
        got[int(f[0])] = f[2]
    return got


def test_binding():
    cpus = sorted(os.sched_getaffinity(0))
    with open("/proc/self/status") as f:
        mine = [l.split()[1] for l in f if l.startswith("Cpus_allowed_list")][0]
    show = ["sh", "-c", "echo $PMI_RANK $(grep Cpus_allowed_list /proc/self/status)"]
    n = min(len(cpus), 4)
    if n >= 2:
        res = run(["-n", str(n)] + show)
        check(res.returncode == 0, "exit 0", res)
        check(cpu_lists(res) == {r: str(cpus[r]) for r in range(n)},
              "rank i bound to the i-th CPU by default", res)
    res = run(["-n", str(len(cpus) + 1)] + show)
    check(set(cpu_lists(res).values()) == {mine},
          "no binding when ranks outnumber CPUs", res)
    res = run(["-n", "1"] + show)
    check(cpu_lists(res) == {0: mine}, "a single rank is not bound", res)
    res = run(["--bind-to", "none", "-n", "2"] + show)
    check(set(cpu_lists(res).values()) == {mine}, "--bind-to none", res)
    res = run(["--bind-to", "core", "-n", str(len(cpus) + 1)] + show)
    check(cpu_lists(res) == {r: str(cpus[r % len(cpus)])
                             for r in range(len(cpus) + 1)},
          "--bind-to core binds round-robin", res)


def test_stdin():
    data = bytes(range(256)) * 1000
    total = 0
    for b in data:
        total = (total * 31 + b) % (1 << 64)
    p = subprocess.run([ARGS.tern_run, "-n", "2", P(), "stdin"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    res = Result(p.returncode, p.stdout.decode(), p.stderr.decode(), 0)
    check(res.returncode == 0, "exit 0", res)
    lines = sorted(res.stdout.splitlines())
    check(lines == ["stdin 0 %d %d" % (len(data), total), "stdin 1 0 0"],
          "rank 0 got stdin, rank 1 /dev/null", res)


def test_initack():
    res = run(["-n", "3", P(), "initack"])
    check(res.returncode == 0 and res.stdout.count("initack ok") == 3,
          "initack handshake", res)


def test_no_pmi():
    """Ranks that exit 0 without ever contacting their PMI server (a plain C
    program; a program of an MPI whose library does not speak PMI-1 runs as
    singletons the same way): the job exits 0 with a warning naming them and
    a hint; not with -q, not for a one-rank job, not when they all spoke
    PMI."""
    true = shutil.which("true")
    res = run(["-n", "4", "true"])
    expect_no_pmi_warning(res, "0-3", 4, "true", true)
    check(res.stdout == "", "nothing on stdout", res)
    res = run(["-n", "3", "sh", "-c", 'if [ "$PMI_RANK" != 1 ]; then exec "$0" '
               'closepmi; fi', P()])
    expect_no_pmi_warning(res, "1", 3, "sh", shutil.which("sh"))
    res = run(["-n", "7", "sh", "-c", 'case "$PMI_RANK" in 2|5) exec "$0" '
               'closepmi;; esac', P()])
    expect_no_pmi_warning(res, "0-1,3-4,6", 7, "sh", shutil.which("sh"))
    for args in (["-q", "-n", "4", true], ["--quiet", "-n", "2", true],
                 ["-n", "1", true], ["-n", "3", P(), "closepmi"]):
        res = run(args)
        check(res.returncode == 0 and res.stderr == "", "no warning: %s" % args, res)


def test_usage():
    res = run(["--version"])
    check(res.returncode == 0 and res.stdout.startswith("tern-run"), "--version", res)
    res = run(["--help"])
    check(res.returncode == 0 and "--timeout" in res.stdout, "--help", res)
    res = run(["-n", "0", "true"])
    check(res.returncode == 2 and len(tern_lines(res)) == 1, "bad -n", res)
    res = run(["--bogus", "true"])
    check(res.returncode == 2, "unknown option", res)
    res = run(["--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
               "-np", "2", P(), "exchange"])
    check(res.returncode == 0, "Open MPI options accepted", res)
    res = run(["-n", "2", "/nonexistent/prog"])
    check(res.returncode == 127 and len(tern_lines(res)) == 1, "missing program", res)
    res = run(["-n", "2", "no-such-program-anywhere"])
    check(res.returncode == 127, "program not in PATH", res)
    # a missing network namespace is named, not the program
    res = run(["--netns", "tern-no-such-ns", "-n", "1", P(), "exchange"])
    check(res.returncode != 0 and
          "open network namespace 'tern-no-such-ns'" in res.stderr and
          "'" + P() + "'" not in res.stderr, "missing namespace named", res)


def slurm_env(**kw):
    """This environment without Slurm's variables, plus kw."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SLURMD_", "PMI_", "PMIX_"))}
    env.update(kw)
    return env


def test_slurm_env():
    """Inside a Slurm allocation (its variables faked; the one node is this
    one, so no srun is needed): the hosts and -n come from the allocation,
    except in a task that Slurm started with a PMI server; hostile values
    end tern-run with a message that says what is wrong."""
    alloc = dict(SLURM_JOB_ID="77", SLURM_JOB_NODELIST="localhost",
                 SLURM_TASKS_PER_NODE="3", PROBE_MAPPING="(vector,(0,1,3))")
    res = run(["-v", P(), "exchange"], env=slurm_env(**alloc))
    check(res.returncode == 0 and res.stdout.count("exchange ok (3 ranks)") == 3,
          "3 ranks from SLURM_TASKS_PER_NODE", res)
    check("tern-run: Slurm job 77: 1 node (localhost), 3 slots (3)" in res.stderr,
          "the allocation named (-v)", res)
    # Slurm's name of this node (SLURMD_NODENAME) is this host: no proxy
    res = run(["-v", P(), "exchange"],
              env=slurm_env(**dict(alloc, SLURM_JOB_NODELIST="tn-node7",
                                   SLURMD_NODENAME="tn-node7")))
    check(res.returncode == 0 and res.stdout.count("exchange ok (3 ranks)") == 3 and
          "proxy started" not in res.stderr, "SLURMD_NODENAME is this host", res)
    # a step's task: the job's CPUs per node, not the step's tasks
    res = run([P(), "exchange"],
              env=slurm_env(**dict(alloc, SLURM_STEP_ID="0",
                                   SLURM_JOB_CPUS_PER_NODE="2",
                                   PROBE_MAPPING="(vector,(0,1,2))")))
    check(res.returncode == 0 and res.stdout.count("exchange ok (2 ranks)") == 2,
          "in a step: slots from SLURM_JOB_CPUS_PER_NODE", res)
    # a task with Slurm's PMI: one rank of Slurm's job, tern-run stays here
    for pmi in ("PMI_FD", "PMI_PORT", "PMIX_NAMESPACE"):
        res = run(["-v", P(), "exchange"],
                  env=slurm_env(**dict(alloc, SLURM_STEP_ID="3",
                                       PROBE_MAPPING="(vector,(0,1,1))",
                                       **{pmi: "9"})))
        check(res.returncode == 0 and res.stdout.count("exchange ok (1 ranks)") == 1 and
              "a task of Slurm step 77.3 with a PMI server" in res.stderr,
              "a PMI task (%s) ignores the allocation" % pmi, res)
    # -host wins over the allocation
    res = run(["-host", "localhost:2", P(), "exchange"],
              env=slurm_env(**dict(alloc, PROBE_MAPPING="(vector,(0,1,2))")))
    check(res.returncode == 0 and res.stdout.count("exchange ok (2 ranks)") == 2,
          "-host is used, not the allocation", res)
    bad = [
        (dict(SLURM_JOB_NODELIST="h[0-999999999]"),
         "tern-run: Slurm job 77: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE: "
         "bad hostlist 'h[0-999999999]': more nodes than tern-run takes (65536)"),
        (dict(SLURM_JOB_NODELIST="h[3-1]"),
         "tern-run: Slurm job 77: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE: "
         "bad hostlist 'h[3-1]': a range runs backwards"),
        (dict(SLURM_TASKS_PER_NODE="2(x3)"),
         "tern-run: Slurm job 77: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE: "
         "1 node in 'localhost' but 3 counts in '2(x3)'"),
        (dict(SLURM_TASKS_PER_NODE="0"),
         "tern-run: Slurm job 77: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE: "
         "bad count list '0': want counts from 1 to 65536"),
        (dict(SLURM_JOB_NODELIST="a b"),
         "tern-run: Slurm job 77: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE: "
         "bad host name 'a b'"),
        (dict(SLURM_TASKS_PER_NODE=None),
         "tern-run: Slurm job 77: SLURM_TASKS_PER_NODE is not set"),
    ]
    for change, msg in bad:
        env = slurm_env(**dict(alloc, **{k: v for k, v in change.items() if v}))
        for k, v in change.items():
            if v is None:
                del env[k]
        res = run([P(), "exchange"], env=env)
        check(res.returncode == 2 and tern_lines(res) == [msg],
              "refused with %r" % msg, res)
    res = run(["--launcher", "slurm", "-n", "1", P(), "exchange"], env=slurm_env())
    check(res.returncode == 2 and tern_lines(res) == [
        "tern-run: --launcher slurm: not inside a Slurm allocation "
        "(SLURM_JOB_ID and SLURM_JOB_NODELIST are not set)"],
        "--launcher slurm outside an allocation", res)


def run_named(globs, label):
    """Parse the command line and run the test it names: test_<name> in
    globs (a test module's globals); print "<label>.<name>: ok" or why not."""
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--tern-run", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--mpi-prog", default=None)
    ap.add_argument("test")
    ARGS = ap.parse_args()
    ARGS.tern_run = os.path.abspath(ARGS.tern_run)
    ARGS.probe = os.path.abspath(ARGS.probe)
    if ARGS.mpi_prog:
        ARGS.mpi_prog = os.path.abspath(ARGS.mpi_prog)
    fn = globs.get("test_" + ARGS.test)
    if fn is None:
        print("unknown test " + ARGS.test, file=sys.stderr)
        return 2
    try:
        fn()
    except Failure as e:
        print("%s.%s: %s" % (label, ARGS.test, e), file=sys.stderr)
        return 1
    print("%s.%s: ok" % (label, ARGS.test))
    return 0


def main():
    return run_named(globals(), "launcher")


if __name__ == "__main__":
    sys.exit(main())
