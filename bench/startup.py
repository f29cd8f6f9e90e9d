#!/usr/bin/env python3
"""Start-up time of Tern against Open MPI and MPICH, in the same run.

For each size, REPS launches per library, interleaved: the time from the
launcher's start to MPI_Init having returned on every rank (tern_hello.c's
rank 0 prints the wall clock after a barrier) and to the launcher's exit.
Medians are printed with the ratio to the faster other library.

    bench/startup.py [--reps N] [--sizes 2,8,32,128] [--ssh] [--libs ...]

--ssh: 4 hosts x 8 ranks over ssh, the hosts being network namespaces with
their own sshd (tests/net/ssh_cluster.sh; root only); every launcher runs
in the first namespace and reaches the hosts through the cluster's ssh.
Binding: to cores when the ranks fit the cores, else none, for every
library.  Uses bench/compare.py's library set-up (wrappers, packages).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compare  # noqa: E402

SSH_CLUSTER = os.path.join(REPO, "tests", "net", "ssh_cluster.sh")


def build(libs, outdir):
    for lib in libs.values():
        if lib.error:
            continue
        exe = os.path.join(outdir, "hello_" + lib.name)
        r = subprocess.run([lib.cc, "-O2", os.path.join(HERE, "tern_hello.c"), "-o", exe],
                           capture_output=True, text=True)
        if r.returncode != 0:
            lib.error = "build failed: " + r.stderr[-300:]
        lib.exes["hello"] = exe


def local_cmd(lib, n, cores):
    bind = "core" if n <= cores else "none"
    exe = lib.exes["hello"]
    if lib.name == "tern":
        return [lib.launcher, "--bind-to", bind, "-n", str(n), exe]
    if lib.name == "openmpi":
        return [lib.launcher, "--allow-run-as-root", "--oversubscribe", "--bind-to", bind,
                "-n", str(n), exe]
    return [lib.launcher, "-n", str(n), "-bind-to", bind, exe]


def ssh_cmd(lib, hosts, ppn, rsh):
    exe = lib.exes["hello"]
    n = str(len(hosts) * ppn)
    if lib.name == "tern":
        return ["env", "TERN_RUN_RSH=" + rsh, lib.launcher, "--bind-to", "none",
                "-host", ",".join("%s:%d" % (h, ppn) for h in hosts), "-n", n, exe]
    if lib.name == "openmpi":
        # every namespace has the same host name: ob1 over tcp, not the
        # shared-memory paths that key on it (PMIx's dstore crashes)
        return [lib.launcher, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
                "--mca", "plm_rsh_agent", rsh, "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
                "--mca", "oob_tcp_if_include", "eth0", "--mca", "btl_tcp_if_include", "eth0",
                "-host", ",".join("%s:%d" % (h, ppn) for h in hosts), "-n", n, exe]
    return [lib.launcher, "-launcher", "ssh", "-launcher-exec", rsh, "-bind-to", "none",
            "-hosts", ",".join("%s:%d" % (h, ppn) for h in hosts), "-n", n,
            "-genv", "UCX_TLS", "tcp,self,sm", "-genv", "UCX_NET_DEVICES", "eth0,lo", exe]


def once(cmd, prefix, timeout=120):
    t0 = time.time()
    try:
        r = subprocess.run(prefix + cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "no exit after %d s" % timeout
    t1 = time.time()
    if r.returncode != 0:
        return None, "rc %d: %s" % (r.returncode, (r.stderr or r.stdout)[-300:])
    inited = [int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("inited ")]
    if not inited:
        return None, "no 'inited' line"
    return (inited[0] / 1e9 - t0, t1 - t0), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", default="2,8,32,128")
    ap.add_argument("--ssh", action="store_true", help="4 hosts x 8 over ssh instead")
    ap.add_argument("--libs", default="tern,openmpi,mpich")
    ap.add_argument("--tern-build", default=os.path.join(REPO, "build"))
    ap.add_argument("--no-install", action="store_true")
    opts = ap.parse_args()
    copts = argparse.Namespace(libs=opts.libs.split(","), tern_build=opts.tern_build,
                               tern_run_args="", bind="core", no_install=opts.no_install)
    libs = compare.make_libs(copts)
    compare.ensure_packages(libs, copts)
    tmp = tempfile.mkdtemp(prefix="tern-startup-")
    build(libs, tmp)
    for lib in libs.values():
        if lib.error:
            print("# %s: %s" % (lib.name, lib.error), file=sys.stderr)
    cores = compare.ncores()
    prefix = []
    jobs = []
    if opts.ssh:
        subprocess.run([SSH_CLUSTER, "up", "tsu", "4"], check=True, stdout=subprocess.DEVNULL)
        # one executable (Hydra's -launcher-exec takes no arguments)
        rsh = os.path.join(tmp, "rsh")
        with open(rsh, "w") as f:
            f.write("#!/bin/sh\nexec %s \"$@\"\n" % subprocess.run(
                [SSH_CLUSTER, "rsh", "tsu"], check=True, capture_output=True,
                text=True).stdout.strip())
        os.chmod(rsh, 0o755)
        prefix = ["ip", "netns", "exec", "tsu-n0"]
        # by address: Hydra's proxies hang when given the ssh aliases
        hosts = [subprocess.run([os.path.join(REPO, "tests", "net", "netns_cluster.sh"),
                                 "addr", "tsu", str(i)], check=True, capture_output=True,
                                text=True).stdout.strip() for i in range(4)]
        jobs = [("4 hosts x 8 (ssh)", {l.name: ssh_cmd(l, hosts, 8, rsh)
                                       for l in libs.values() if not l.error})]
    else:
        for n in (int(x) for x in opts.sizes.split(",")):
            jobs.append(("%d ranks" % n, {l.name: local_cmd(l, n, cores)
                                          for l in libs.values() if not l.error}))
    try:
        print("| job | library | MPI_Init everywhere (s) | job exit (s) | exit / best other |")
        print("|---|---|---|---|---|")
        for title, cmds in jobs:
            res = {name: [] for name in cmds}
            for _ in range(opts.reps):
                for name, cmd in cmds.items():
                    v, err = once(cmd, prefix)
                    if v is None:
                        print("# %s %s: %s" % (title, name, err), file=sys.stderr)
                    else:
                        res[name].append(v)
            med = {name: (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r))
                   for name, r in res.items() if r}
            others = [med[n][1] for n in med if n != "tern"]
            for name, (ini, ext) in med.items():
                ratio = ""
                if name == "tern" and others:
                    ratio = "%.2f" % (ext / min(others))
                print("| %s | %s | %.3f | %.3f | %s |" % (title, name, ini, ext, ratio),
                      flush=True)
    finally:
        if opts.ssh:
            subprocess.run([SSH_CLUSTER, "down", "tsu"], stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
