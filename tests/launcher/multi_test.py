#!/usr/bin/env python3
"""Tests of tern-run's multi-host jobs on one machine: the proxies are
started by tern-run itself (--launcher fork) or through fake_rsh.sh, a
remote shell that runs the command here, so every path of the launch tree
(frames, fences across hosts, lost hosts, MPMD, the job's end) is covered
without sshd.  The same launches through real sshds in network namespaces
are tests/net/ssh_launch.sh.  The ranks are pmi_probe (PMI-1, no MPI
library) unless a test says otherwise.

    multi_test.py --tern-run PATH --probe PATH [--mpi-prog PATH] TEST
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launcher_test as lt  # noqa: E402  (run, check, expect_death, ...)

from launcher_test import Failure, check, expect_death, tern_lines  # noqa: E402

RSH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_rsh.sh")
FORK = ["--launcher", "fork"]


def run(args, **kw):
    return lt.run(args, **kw)


def P():
    return lt.ARGS.probe


def ok_lines(res, n):
    got = sorted(res.stdout.splitlines())
    want = sorted("rank %d: exchange ok (%d ranks)" % (r, n) for r in range(n))
    check(got == want, "every rank reported ok", res)


def ranks_of(res):
    return sorted(int(l.split()[1]) for l in res.stdout.splitlines()
                  if l.startswith("pids "))


# ------------------------------------------------------------------ tests
def test_exchange():
    """Slots in order across 4 hosts; fences and gets across proxies; the
    process mapping the ranks see describes the hosts."""
    res = run(FORK + ["-host", "a:2,b:2,c,d", "-n", "6", "-genv", "PROBE_MAPPING",
                      "(vector,(0,2,2),(2,2,1))", P(), "exchange"])
    check(res.returncode == 0 and res.stderr == "", "exit 0, nothing on stderr", res)
    ok_lines(res, 6)


def test_rsh_chain():
    """Proxies started through a remote shell (quoting included), by node,
    as a chain (tree width 1: every proxy starts the next)."""
    env = dict(os.environ, TERN_RUN_TREE_WIDTH="1")
    res = run(["--launcher-exec", RSH, "-host", "a,b,c", "--map-by", "node",
               "-n", "6", "--oversubscribe", "-genv", "PROBE_MAPPING",
               "(vector,(0,3,1))", P(), "exchange"], env=env)
    check(res.returncode == 0 and res.stderr == "", "exit 0, nothing on stderr", res)
    ok_lines(res, 6)
    res = run(["--launcher-exec", RSH, "-host", "a,b", "-n", "4", P(), "exchange"],
              env=env)
    check(res.returncode == 0, "exit 0", res)
    check(any("more than the hosts' 2 slots" in l for l in tern_lines(res)),
          "oversubscription is warned about", res)


def test_lost():
    """A host that refuses the remote shell ends the job at once, naming
    the host, its ranks and what the remote shell said; nothing is left."""
    # width 1: a chain, where a's proxy starts refuse1's (and says so) and
    # c is below refuse1
    for width, who, ranks in (("32", "", "2-3"), ("1", "a: ", "2-5")):
        env = dict(os.environ, TERN_RUN_TREE_WIDTH=width)
        res = run(["--launcher-exec", RSH, "-host", "a,refuse1,c", "-ppn", "2",
                   P(), "exchange"], env=env)
        expect_death(res, 1, r"tern-run: %scannot start on host refuse1 \(ranks %s\): "
                     r"ssh: connect to host refuse1 port 22: Connection refused "
                     r"\(exit status 255\)" % (who, ranks))


def test_death():
    """The one-line death messages name the rank's host."""
    res = run(FORK + ["-host", "a,b", "-ppn", "2", P(), "signal", "KILL", "3"])
    expect_death(res, 137, r"tern-run: rank 3 \(pid \d+ on b\) killed by signal 9 \(SIGKILL\)")
    res = run(FORK + ["-host", "a,b", "-ppn", "2", P(), "exit", "3", "2"])
    expect_death(res, 3, r"tern-run: rank 2 \(pid \d+ on b\) exited with status 3")
    res = run(FORK + ["-host", "a,b", "-ppn", "2", P(), "abort", "7", "3"])
    expect_death(res, 7, r"tern-run: rank 3 called MPI_Abort \(error code 7\)")
    res = run(FORK + ["-host", "a,b", "-ppn", "2", P(), "nofinalize", "1"])
    expect_death(res, 1, r"tern-run: rank 1 \(pid \d+ on a\) exited without calling "
                 r"MPI_Finalize")


def test_stuck():
    """A rank gone on one host while the others wait in a fence on another:
    the head sees both and ends the job."""
    res = run(FORK + ["-host", "a,b,c", "-ppn", "1", P(), "afterfin", "2"])
    expect_death(res, 1, r"tern-run: rank 2 \(pid \d+ on c\) exited after MPI_Finalize "
                 r"while other ranks wait for it")
    res = run(FORK + ["-host", "a,b", "-ppn", "2", P(), "early", "1"])
    expect_death(res, 1, r"tern-run: rank 1 \(pid \d+ on a\) exited before calling "
                 r"MPI_Init while other ranks wait for it")


def test_timeout():
    res = run(FORK + ["-host", "a,b", "-ppn", "1", "--timeout", "1", P(), "hang"])
    check(res.returncode == 124, "exit 124", res)
    check("tern-run: job timed out after 1 s" in tern_lines(res), "says so", res)
    check(res.secs < 8, "ended promptly", res)


def test_signals():
    """SIGINT ends every host's ranks (and what they forked); SIGKILL of the
    head leaves nothing behind either."""
    p, lines = lt.start_job(FORK + ["-host", "a,b,c", "-n", "3", P(), "forkwait"],
                            3, "pids ")
    pids = [int(x) for l in lines for x in l[2:4]]
    p.send_signal(signal.SIGINT)
    res = lt.finish(p)
    check(res.returncode == 130, "exit 130", res)
    check(lt.wait_gone(pids, 5), "ranks and their children are gone", res)
    for launcher in (FORK, ["--launcher-exec", RSH]):
        p, lines = lt.start_job(launcher + ["-host", "a,b", "-n", "4", P(),
                                            "forkwait"], 4, "pids ")
        pids = [int(x) for l in lines for x in l[2:4]]
        p.kill()
        p.wait()
        check(lt.wait_gone(pids, 10), "SIGKILL of the head: ranks gone too (%s)"
              % launcher[0])


def test_mpmd():
    """Blocks with ':' get their own -n and -x, and MPI_APPNUM (PMI appnum)
    is the block's number; on one host and across hosts."""
    for extra in ([], FORK + ["-host", "a,b", "--oversubscribe", "-genv", "PROBE_MAPPING",
                              "(vector,(0,2,1),(0,2,1),(0,1,1))"]):
        res = run(extra + ["-n", "2", "-x", "PROBE_APPNUM=0", P(), "exchange", ":",
                           "-n", "3", "-x", "PROBE_APPNUM=1", P(), "exchange"])
        check(res.returncode == 0 and res.stderr == "", "exit 0, quiet", res)
        ok_lines(res, 5)
    res = run(["-n", "2", P(), "exchange", ":", P(), "exchange"])
    check(res.returncode == 2 and "has no -n" in res.stderr, "every block needs -n", res)
    res = run(["-n", "2", P(), "exchange", ":"])
    check(res.returncode == 2 and "no program given" in res.stderr, "a trailing ':'", res)
    res = run(["-n", "1", "-x", "A=1", "sh", "-c", "echo $A $B", ":",
               "-n", "1", "-env", "B", "2", "sh", "-c", "echo $A $B"])
    check(res.returncode == 0 and sorted(res.stdout.split("\n")) == ["", "1", "2"],
          "-x and -env belong to their block", res)


def test_hostfile():
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("# Open MPI and MPICH forms\na slots=2\nb:3\n\nc  # one slot\n")
        good = f.name
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("a\nb cpus=2\n")
        bad = f.name
    try:
        res = run(FORK + ["-hostfile", good, "-genv", "PROBE_MAPPING",
                          "(vector,(0,1,2),(1,1,3),(2,1,1))", P(), "exchange"])
        check(res.returncode == 0, "exit 0; -n defaults to the slots", res)
        ok_lines(res, 6)
        res = run(FORK + ["-machinefile", bad, P(), "exchange"])
        check(res.returncode == 2 and
              "%s:2: unknown field 'cpus=2' (want slots=N)" % bad in res.stderr,
              "a bad line is named", res)
    finally:
        os.unlink(good)
        os.unlink(bad)
    res = run(["-ppn", "2", "-n", "4", P(), "exchange"])
    check(res.returncode == 2 and "needs 2 hosts" in res.stderr,
          "-ppn without hosts is not ignored", res)
    res = run(["--netns", "x", "-host", "a", P(), "exchange"])
    check(res.returncode == 2, "--netns and -host exclude each other", res)
    res = run(["-host", "a;reboot", P(), "exchange"])
    check(res.returncode == 2 and "bad host name" in res.stderr, "host names checked", res)


def test_bindings():
    """--report-bindings says where each rank is bound; --bind-to hwthread
    binds one thread; more ranks than cores is warned about."""
    cpus = sorted(os.sched_getaffinity(0))
    res = run(["--report-bindings", "--bind-to", "hwthread", "-n", "2", P(), "exchange"])
    check(res.returncode == 0, "exit 0", res)
    lines = tern_lines(res)
    for r in range(2):
        check(any(re.fullmatch(r"tern-run: rank %d: bound to hardware thread %d "
                               r"\(CPU %d\)" % (r, r % len(cpus), cpus[r % len(cpus)]), l)
                  for l in lines), "rank %d's binding reported" % r, res)
    res = run(["--bind-to", "core", "-n", str(len(cpus) + 1), P(), "exchange"])
    check(res.returncode == 0 and any("ranks share cores" in l for l in tern_lines(res)),
          "binding more ranks than cores is said", res)
    res = run(FORK + ["-host", "a,b", "-n", "2", "--report-bindings", P(), "exchange"])
    check(sum("not bound" in l for l in tern_lines(res)) == 2 and
          "tern-run: b: rank 1: not bound" in tern_lines(res),
          "proxies report their ranks' bindings, naming the host", res)


def test_stdin():
    """Rank 0's stdin reaches it on another host, whole and in order, with
    at most 64 KiB on its way; a rank 0 that never reads it does not hold
    the job."""
    data = bytes(range(256)) * 2000
    total = 0
    for b in data:
        total = (total * 31 + b) % (1 << 64)
    for width in ("32", "1"):
        env = dict(os.environ, TERN_RUN_TREE_WIDTH=width)
        p = subprocess.run([lt.ARGS.tern_run] + FORK + ["-host", "a,b,c", "--map-by", "node",
                                                        "-n", "3", P(), "stdin"],
                           input=data, capture_output=True, timeout=60, env=env)
        res = lt.Result(p.returncode, p.stdout.decode(), p.stderr.decode(), 0)
        check(res.returncode == 0, "exit 0", res)
        check(sorted(res.stdout.splitlines()) ==
              ["stdin 0 %d %d" % (len(data), total), "stdin 1 0 0", "stdin 2 0 0"],
              "rank 0 got all of stdin on host a, the others nothing (width %s)" % width, res)
    p = subprocess.run([lt.ARGS.tern_run] + FORK + ["-host", "a,b", "-n", "2", "-genv",
                                                    "PROBE_MAPPING", "(vector,(0,2,1))",
                                                    P(), "exchange"],
                       input=data * 4, capture_output=True, timeout=60)
    check(p.returncode == 0 and p.stdout.decode().count("exchange ok") == 2,
          "unread stdin does not hold the job")


def test_mpi():
    """An MPI program (shm within a host, and the ring across hosts) with
    the hosts' proxies forked here."""
    res = run(FORK + ["-host", "a,b,c", "-ppn", "2", lt.ARGS.mpi_prog, "6"], timeout=120)
    check(res.returncode == 0 and "No Errors" in res.stdout, "launch_check passes", res)


def main():
    return lt.run_named(globals(), "multi")


if __name__ == "__main__":
    sys.exit(main())
