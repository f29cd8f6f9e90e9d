#!/usr/bin/env python3
"""Compare Tern against Open MPI and MPICH with the bench/ micro-benchmarks.

Builds bench/tern_*.c with each library's compiler wrapper, runs every
benchmark REPS times per library (alternating the libraries inside each
repetition to spread machine noise), takes the median per message size and
prints one table per benchmark and rank count:

    size | tern | openmpi | mpich | tern/best

"best" is the better of the other libraries (lower latency, higher
bandwidth / message rate).  A ratio that misses the target (latency ratio
> 1.0, or > 0.7 on the network paths; bandwidth ratio < 1.0) is marked
with '*'.  The one-sided benchmarks (--bench rma) run once per
synchronisation mode (--rma-sync) and window flavour (--rma-win).

See docs/benchmarks.md for the details (binding policy, columns, caveats).
"""

import argparse
import datetime
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# name -> (source, kind, value column, unit, higher_is_better, description)
BENCHES = {
    "latency":   ("tern_latency.c", "p2p", 1, "us", False, "one-way latency (us)"),
    "bw":        ("tern_bw.c", "p2p", 1, "MB/s", True, "bandwidth (MB/s), window 64"),
    "bibw":      ("tern_bibw.c", "p2p", 1, "MB/s", True, "bi-directional bandwidth (MB/s), window 64"),
    "mr":        ("tern_mr.c", "p2p", 2, "msg/s", True, "message rate (messages/s), window 64"),
    "vbw":       ("tern_vbw.c", "p2p", 1, "MB/s", True,
                  "strided bandwidth (MB/s): vector of every other double, window 16"),
    "barrier":   ("tern_barrier.c", "coll", 0, "us", False, "MPI_Barrier average latency (us)"),
    "bcast":     ("tern_coll.c", "coll", 1, "us", False, "MPI_Bcast (MPI_BYTE) average latency (us)"),
    "allgather": ("tern_coll.c", "coll", 1, "us", False,
                  "MPI_Allgather (MPI_BYTE, size per rank) average latency (us)"),
    "alltoall":  ("tern_coll.c", "coll", 1, "us", False,
                  "MPI_Alltoall (MPI_BYTE, size per rank) average latency (us)"),
    "reduce_scatter": ("tern_coll.c", "coll", 1, "us", False,
                       "MPI_Reduce_scatter_block (MPI_FLOAT, MPI_SUM, size in total) "
                       "average latency (us)"),
    "allreduce": ("tern_allreduce.c", "coll", 1, "us", False,
                  "MPI_Allreduce (MPI_FLOAT, MPI_SUM) average latency (us)"),
    # one-sided, rank 0 -> 1; two sources pick the operation by the program's name
    "put_latency": ("tern_rma_lat.c", "rma", 1, "us", False, "MPI_Put + sync latency (us)"),
    "get_latency": ("tern_rma_lat.c", "rma", 1, "us", False, "MPI_Get + sync latency (us)"),
    "acc_latency": ("tern_rma_lat.c", "rma", 1, "us", False,
                    "MPI_Accumulate (MPI_INT, MPI_SUM) + sync latency (us)"),
    "fop_latency": ("tern_rma_lat.c", "rma", 1, "us", False,
                    "MPI_Fetch_and_op (MPI_LONG_LONG, MPI_SUM) + sync latency (us)"),
    "cas_latency": ("tern_rma_lat.c", "rma", 1, "us", False,
                    "MPI_Compare_and_swap (MPI_LONG_LONG) + sync latency (us)"),
    "put_bw":      ("tern_rma_bw.c", "rma", 1, "MB/s", True, "MPI_Put bandwidth (MB/s), 64 per sync"),
    "get_bw":      ("tern_rma_bw.c", "rma", 1, "MB/s", True, "MPI_Get bandwidth (MB/s), 64 per sync"),
    "put_bibw":    ("tern_rma_bw.c", "rma", 1, "MB/s", True,
                    "MPI_Put bi-directional bandwidth (MB/s), 64 per sync"),
}
# --bench all (the default) is every two-sided benchmark; rma is every one-sided one
BENCH_GROUPS = {
    "all": [b for b, v in BENCHES.items() if v[1] != "rma"],
    "rma": [b for b, v in BENCHES.items() if v[1] == "rma"],
}
RMA_SYNCS = ("fence", "lock", "flush", "flush_local", "lock_all", "pscw")
RMA_BIBW_SYNCS = ("fence", "pscw")  # tern_put_bibw: both ranks are origins
RMA_WINS = ("create", "allocate", "dynamic")
# Open MPI 4.1.4's one-sided component (docs/benchmarks.md).  On shared
# memory it picks osc/rdma (priority 101) over osc/sm (100) for allocate
# windows; osc/rdma's MPI_Compare_and_swap through btl/vader crashes the
# target, osc/sm works and is faster.  On the network paths osc/rdma and
# osc/sm would reach the other rank through shared memory (the namespaces
# share the host name and /dev/shm) whatever the BTLs: osc/pt2pt runs over
# the TCP BTL.
OMPI_RMA_SHM_ARGS = "--mca osc_rdma_priority 50"
OMPI_RMA_NET_ARGS = "--mca osc pt2pt"
ALL_LIBS = ("tern", "openmpi", "mpich")
DEBIAN_PKGS = ["openmpi-bin", "libopenmpi-dev", "mpich", "libmpich-dev"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ncores():
    """Physical cores among the CPUs this process may run on (what the
    launchers' "bind to core" counts), falling back to the CPU count."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        cpus = list(range(os.cpu_count() or 1))
    cores = set()
    for c in cpus:
        base = "/sys/devices/system/cpu/cpu%d/topology/" % c
        try:
            with open(base + "physical_package_id") as f:
                pkg = f.read().strip()
            with open(base + "core_id") as f:
                core = f.read().strip()
        except OSError:
            return len(cpus)
        cores.add((pkg, core))
    return len(cores) or len(cpus)


# --------------------------------------------------------------- libraries

class Lib:
    def __init__(self, name, cc, launcher):
        self.name = name
        self.cc = cc
        self.launcher = launcher
        self.error = None        # set when the library cannot be used at all
        self.exes = {}           # bench -> executable
        self.build_errors = {}   # bench -> message
        self.extra_launch = []

    def launch_cmd(self, nranks, exe, args, cores, bind, net=False, prefix=(), nodes=None,
                   lib_args=()):
        """lib_args: more launcher options, before the program."""
        if nodes is not None:
            cmd = self._nodes_cmd(nranks, exe, args, cores, bind, nodes)
        else:
            cmd = list(prefix) + self._launch_cmd(nranks, exe, args, cores, bind, net)
        if lib_args:
            at = cmd.index(self.launcher) + 1
            cmd[at:at] = list(lib_args)
        return cmd

    def _nodes_cmd(self, nranks, exe, args, cores, bind, nodes):
        """One rank per "node" (network namespace, see netns_up), rank i
        bound to core i (the namespaces share this machine's cores); Open
        MPI and Hydra start from the first namespace and reach the others
        through bench/netns_agent.sh, their ssh stand-in."""
        names, ips = nodes["names"], nodes["ips"]
        if self.name == "tern":
            cmd = [self.launcher] + self.extra_launch + ["-x", "TERN_XPORT=udp",
                                                         "--netns", ",".join(names[:nranks]),
                                                         "-n", str(nranks)]
            return cmd + [exe] + args

        def rank_argv(i):
            pin = ["taskset", "-c", str(i % cores)] if bind != "none" else []
            return pin + [exe] + args
        prefix = ["ip", "netns", "exec", names[0]]
        if self.name == "openmpi":
            cmd = [self.launcher, "--allow-run-as-root", "--oversubscribe",
                   "--mca", "plm_rsh_agent", NETNS_AGENT,
                   "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
                   "--mca", "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include", "eth0",
                   "--bind-to", "none"]
            for i in range(nranks):
                cmd += ([":"] if i else []) + ["-n", "1", "--host", ips[i]] + rank_argv(i)
        else:
            # Hydra takes one host list; rank i lands on the i-th host
            cmd = [self.launcher, "-launcher", "ssh", "-launcher-exec", NETNS_AGENT,
                   "-hosts", ",".join("%s:1" % ip for ip in ips[:nranks]),
                   "-bind-to", "none", "-genv", "UCX_TLS", "tcp,self",
                   "-genv", "UCX_NET_DEVICES", "eth0"]
            for i in range(nranks):
                cmd += ([":"] if i else []) + ["-n", "1"] + rank_argv(i)
        return prefix + cmd

    def _launch_cmd(self, nranks, exe, args, cores, bind, net):
        if self.name == "openmpi":
            cmd = [self.launcher, "--allow-run-as-root", "--oversubscribe"]
            if net:
                # the TCP path: ob1 with the tcp and self BTLs, over loopback
                cmd += ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
                        "--mca", "btl_tcp_if_include", "lo"]
            if bind == "none":
                cmd += ["--bind-to", "none"]
            elif nranks <= cores:
                cmd += ["--bind-to", "core"]
            else:
                cmd += ["--bind-to", "core:overload-allowed"]
            cmd += ["-n", str(nranks)]
        elif self.name == "mpich":
            # Hydra wraps round-robin over the cores when oversubscribed.
            cmd = [self.launcher, "-n", str(nranks), "-bind-to", "none" if bind == "none" else "core"]
            if net:
                # Debian's MPICH runs over UCX: force its TCP transport on loopback
                cmd += ["-genv", "UCX_TLS", "tcp,self", "-genv", "UCX_NET_DEVICES", "lo"]
        else:
            cmd = [self.launcher] + self.extra_launch
            if net:
                cmd += ["-x", "TERN_XPORT=udp"]
            cmd += ["-n", str(nranks)]
        return cmd + [exe] + args


def make_libs(opts):
    libs = {}
    for name in opts.libs:
        if name == "tern":
            bdir = opts.tern_build
            lib = Lib("tern", os.path.join(bdir, "bin", "mpicc"), os.path.join(bdir, "bin", "tern-run"))
            for p in (lib.cc, lib.launcher):
                if not os.access(p, os.X_OK):
                    lib.error = "missing %s (build Tern first or pass --tern-build)" % p
            if opts.tern_run_args is not None:
                lib.extra_launch = shlex.split(opts.tern_run_args)
            elif not lib.error and opts.bind != "none":
                lib.extra_launch = tern_bind_args(lib.launcher)
        elif name == "openmpi":
            lib = Lib("openmpi", "mpicc.openmpi", "mpirun.openmpi")
        else:
            lib = Lib("mpich", "mpicc.mpich", "mpiexec.mpich")
        libs[name] = lib
    return libs


def tern_bind_args(launcher):
    """Use tern-run's core binding option if its --help advertises one."""
    _, out, err, _ = run_once([launcher, "--help"], 10, dict(os.environ))
    if "--bind-to" in out + err:
        return ["--bind-to", "core"]
    return []


def ensure_packages(libs, opts):
    need = [l for l in libs.values() if l.name in ("openmpi", "mpich")
            and not (shutil.which(l.cc) and shutil.which(l.launcher))]
    if not need:
        return
    if opts.no_install:
        for l in need:
            l.error = "%s/%s not installed (--no-install)" % (l.cc, l.launcher)
        return
    cmd = ["apt-get", "-o", "DPkg::Lock::Timeout=900", "install", "-y"] + DEBIAN_PKGS
    if os.geteuid() != 0:
        if shutil.which("sudo"):
            cmd = ["sudo", "-n"] + cmd
    log("installing missing MPI packages: " + " ".join(cmd))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(cmd, env=env, check=False, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        log("package installation failed: %s" % e)
    for l in need:
        if not (shutil.which(l.cc) and shutil.which(l.launcher)):
            l.error = "%s/%s not available after apt-get install" % (l.cc, l.launcher)


def build(libs, benches, opts):
    for lib in libs.values():
        if lib.error:
            log("%-8s unusable: %s" % (lib.name, lib.error))
            continue
        outdir = os.path.join(opts.workdir, lib.name)
        os.makedirs(outdir, exist_ok=True)
        for b in benches:
            src = os.path.join(HERE, BENCHES[b][0])
            exe = os.path.join(outdir, "tern_" + b)
            cmd = [lib.cc] + shlex.split(opts.cflags) + ["-o", exe, src]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                ok = r.returncode == 0
                msg = (r.stdout + r.stderr).strip()
            except (OSError, subprocess.TimeoutExpired) as e:
                ok, msg = False, str(e)
            if ok:
                lib.exes[b] = exe
            else:
                lib.build_errors[b] = msg
                log("%-8s build of %s FAILED: %s\n%s" % (lib.name, b, " ".join(cmd), tail(msg)))


def build_probe(opts):
    """Builds bench/core_rtt.c with the system compiler; returns its path or None."""
    exe = os.path.join(opts.workdir, "core_rtt")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        log("core_rtt: no C compiler; host phases are not recorded")
        return None
    cmd = [cc, "-O2", "-o", exe, os.path.join(HERE, "core_rtt.c")]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        log("core_rtt: build failed (%s); host phases are not recorded" % e)
        return None
    if r.returncode != 0:
        log("core_rtt: build failed; host phases are not recorded\n" + tail(r.stderr, 5))
        return None
    return exe


def probe_rtt(probe):
    """The core-to-core cache-line round trip now (ns), or None."""
    if probe is None:
        return None
    try:
        r = subprocess.run([probe], capture_output=True, text=True, timeout=30)
        f = r.stdout.split()
        return float(f[1]) if r.returncode == 0 and len(f) == 2 and f[0] == "core_rtt_ns" \
            and f[1] != "-" else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def settle(opts, probe):
    """Before a run: the round trip now; with --settle, first wait (up to
    --settle-max seconds) until it is at most --settle ns."""
    rtt = probe_rtt(probe)
    if not opts.settle or rtt is None or rtt <= opts.settle:
        return rtt
    t0 = time.monotonic()
    log("   core round trip %.0f ns > %g: waiting for a faster host phase" % (rtt, opts.settle))
    while rtt is not None and rtt > opts.settle and time.monotonic() - t0 < opts.settle_max:
        time.sleep(1.0)
        rtt = probe_rtt(probe)
    log("   ... %.0f ns after %.0f s" % (rtt if rtt is not None else -1, time.monotonic() - t0))
    return rtt


def tail(text, lines=15):
    return "\n".join(text.strip().splitlines()[-lines:])


# ------------------------------------------------------------------- runs

def run_once(cmd, timeout, env):
    """Runs cmd in its own session; returns (status, stdout, stderr, seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, env=env)
    except OSError as e:
        return "FAIL", "", str(e), 0.0
    try:
        out, err = p.communicate(timeout=timeout)
        status = "ok" if p.returncode == 0 else "FAIL"
        if p.returncode != 0:
            err = err.rstrip() + "\n(exit status %d)" % p.returncode
    except subprocess.TimeoutExpired:
        status = "TIMEOUT"
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 10)):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, err = p.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = "", ""
    return status, out or "", err or "", time.monotonic() - t0


BAD_RE = re.compile(r"^# ERROR: data validation failed at size (\d+)")


def parse(bench, text):
    """Returns ({key: value}, set of keys with bad data)."""
    col = BENCHES[bench][2]
    rows, bad = {}, set()
    for line in text.splitlines():
        line = line.strip()
        m = BAD_RE.match(line)
        if m:
            bad.add(int(m.group(1)))
            continue
        if not line or line.startswith("#"):
            continue
        f = line.split()
        try:
            if bench == "barrier":
                rows["-"] = float(f[col])
            else:
                rows[int(f[0])] = float(f[col])
        except (ValueError, IndexError):
            continue
    return rows, bad


# ---------------------------------------------------------------- tables

def fmt_value(v, unit):
    if unit == "msg/s":
        return "%.0f" % v
    return "%.2f" % v


def fmt_ratio(r):
    return "%.2f" % r if r >= 0.095 else "%.2g" % r


def size_label(k):
    if k == "-":
        return "-"
    return str(k)


def target_ratio(bench, opts):
    """Tern's target as a ratio to the best other library: bandwidth and
    message rate >= 1.0; latency <= 1.0, or <= --latency-target (default
    0.7 on the network paths, where Tern's udp meets the others' TCP)."""
    if BENCHES[bench][4]:
        return 1.0
    return opts.latency_target


def make_table(bench, nranks, libs, results, target=None):
    """results[lib] = {"vals": {key: [v...]}, "bad": set, "status": str};
    target: Tern's target ratio (default 1.0)."""
    _, _, _, unit, higher, _ = BENCHES[bench]
    if target is None:
        target = 1.0
    keys = set()
    for r in results.values():
        keys |= set(r["vals"].keys())
    keys = sorted(keys, key=lambda k: -1 if k == "-" else k)
    others = [l for l in libs if l != "tern"]
    with_ratio = "tern" in libs and bool(others)
    header = ["size"] + list(libs) + (["tern/best"] if with_ratio else [])
    rows, misses, compared = [], 0, 0
    for k in keys:
        med = {}
        row = [size_label(k)]
        for l in libs:
            r = results[l]
            vals = r["vals"].get(k)
            if k in r["bad"]:
                row.append("BADDATA")
            elif vals:
                med[l] = statistics.median(vals)
                row.append(fmt_value(med[l], unit))
            else:
                row.append(r["status"] if r["status"] != "ok" else "FAIL")
        if with_ratio:
            cands = [med[l] for l in others if l in med and med[l] > 0]
            if "tern" in med and cands:
                best = max(cands) if higher else min(cands)
                ratio = med["tern"] / best
                miss = ratio < target if higher else ratio > target
                compared += 1
                misses += miss
                row.append("%s%s" % (fmt_ratio(ratio), " *" if miss else "  "))
            else:
                row.append("-")
        rows.append(row)
    return header, rows, misses, compared


def rtt_line(libs, results):
    """The host phase each repetition ran in (bench/core_rtt.c), or ''."""
    parts = []
    for l in libs:
        rtts = results[l].get("rtt", [])
        if any(r is not None for r in rtts):
            parts.append("%s %s" % (l, " ".join("%.0f" % r if r is not None else "-"
                                                for r in rtts)))
    if not parts:
        return ""
    return "core round trip before each repetition (ns): " + "; ".join(parts)


def table_title(bench, nranks, opts, extra=()):
    _, _, _, unit, higher, desc = BENCHES[bench]
    better = "higher" if higher else "lower"
    target = target_ratio(bench, opts)
    goal = (", target tern/best %s %.2g" % (">=" if higher else "<=", target)
            if target != 1.0 else "")
    name = " ".join([bench] + list(extra))
    return "%s, %d ranks: %s, median of %d, %s is better%s" % (
        name, nranks, desc, opts.reps, better, goal)


def render_text(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else \
        [len(h) for h in header]
    out = []
    for i, r in enumerate([header] + rows):
        cells = [str(c).ljust(widths[0]) if j == 0 else str(c).rjust(widths[j])
                 for j, c in enumerate(r)]
        out.append("  ".join(cells))
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def render_md(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---:"] * len(header)) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).strip() for c in r) + " |")
    return "\n".join(out)


def lib_versions(libs):
    v = {}
    for name, lib in libs.items():
        if lib.error:
            v[name] = "unavailable"
            continue
        try:
            if name == "openmpi":
                out = subprocess.run([lib.launcher, "--version"], capture_output=True,
                                     text=True, timeout=20).stdout
                v[name] = out.splitlines()[0].strip() if out else "?"
            elif name == "mpich":
                out = subprocess.run([lib.launcher, "--version"], capture_output=True,
                                     text=True, timeout=20).stdout
                m = re.search(r"Version:\s*(\S+)", out)
                v[name] = "MPICH (Hydra) " + (m.group(1) if m else "?")
            else:
                r = subprocess.run(["git", "-C", REPO, "describe", "--always", "--dirty"],
                                   capture_output=True, text=True, timeout=20)
                v[name] = "Tern " + (r.stdout.strip() or "(no commit)")
        except (OSError, subprocess.TimeoutExpired, IndexError):
            v[name] = "?"
    return v


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


# ------------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Build and run the bench/ micro-benchmarks against Tern, Open MPI "
                    "and MPICH and compare the medians.")
    ap.add_argument("--tern-build", default=None, metavar="DIR",
                    help="Tern build directory with bin/mpicc and bin/tern-run (default: "
                         "build/ in the repository root; a relative DIR is taken from the "
                         "current directory)")
    ap.add_argument("--ranks", default="2",
                    help="comma-separated rank counts for the collective benchmarks (default 2)")
    ap.add_argument("--p2p-ranks", type=int, default=2,
                    help="rank count for the point-to-point benchmarks (default 2)")
    ap.add_argument("--bench", default="all",
                    help="comma-separated benchmarks or groups: all (the two-sided ones, the "
                         "default: %s), rma (the one-sided ones: %s)"
                         % (",".join(BENCH_GROUPS["all"]), ",".join(BENCH_GROUPS["rma"])))
    ap.add_argument("--rma-sync", default="flush,fence,pscw", metavar="S,...",
                    help="synchronisation modes for the one-sided benchmarks, each run on "
                         "its own (default flush,fence,pscw; of %s; put_bibw takes fence "
                         "and pscw only)" % ",".join(RMA_SYNCS))
    ap.add_argument("--rma-win", default="allocate", metavar="W,...",
                    help="window flavours for the one-sided benchmarks (default allocate; "
                         "of %s)" % ",".join(RMA_WINS))
    ap.add_argument("--ompi-rma-args", default=None, metavar="ARGS",
                    help="mpirun.openmpi options for the one-sided benchmarks (default "
                         "'%s' on shared memory: osc/sm for allocate windows, where the "
                         "default osc/rdma crashes in MPI_Compare_and_swap; '%s' on the "
                         "network paths, the one component that uses the TCP BTL; '' for "
                         "Open MPI's defaults)" % (OMPI_RMA_SHM_ARGS, OMPI_RMA_NET_ARGS))
    ap.add_argument("--latency-target", type=float, default=None, metavar="R",
                    help="mark latencies above R x the best other library (default 1.0; "
                         "0.7 with --net, --loss or --netns)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions per library (default 5)")
    ap.add_argument("--libs", default=",".join(ALL_LIBS),
                    help="comma-separated libraries (default tern,openmpi,mpich)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 1 repetition, -i 0.1 -t 0.05")
    ap.add_argument("--markdown", metavar="FILE", help="also write the tables as markdown")
    ap.add_argument("--timeout", type=float, default=None,
                    help="per-run timeout in seconds (default 180, quick 120)")
    ap.add_argument("--iter-scale", type=float, default=None,
                    help="benchmark -i option (default 1, quick 0.1)")
    ap.add_argument("--budget", type=float, default=None,
                    help="benchmark -t option: seconds per size (default 0.2, quick 0.05)")
    ap.add_argument("--sizes", default=None, metavar="MIN:MAX",
                    help="benchmark -m option (message size range), all benchmarks")
    ap.add_argument("--bind", choices=("core", "none"), default="core",
                    help="process binding policy (default core, see docs/benchmarks.md)")
    ap.add_argument("--tern-run-args", default=None,
                    help="extra tern-run arguments (default: '--bind-to core' if tern-run "
                         "--help mentions --bind-to)")
    ap.add_argument("--retry-timeouts", action="store_true",
                    help="keep running later repetitions of a benchmark that timed out "
                         "(default: skip them)")
    ap.add_argument("--cflags", default="-O2", help="compiler flags (default -O2)")
    ap.add_argument("--workdir", default=None,
                    help="build/output directory (default /tmp/tern-bench-compare-$USER)")
    ap.add_argument("--net", action="store_true",
                    help="network path: Tern over its udp transport, Open MPI over its TCP "
                         "BTL, MPICH over UCX's TCP transport, all on loopback")
    ap.add_argument("--loss", type=float, default=None, metavar="PCT",
                    help="run everything inside a private network namespace whose loopback "
                         "drops PCT %% of the UDP and TCP packets (nftables; needs root); "
                         "also runs the same benchmarks there without loss and prints "
                         "lossless-vs-loss summaries (implies --net)")
    ap.add_argument("--netns", action="store_true",
                    help="network path across nodes: one rank in each of --p2p-ranks network "
                         "namespaces joined by veth pairs on a bridge (tests/net/netns_cluster.sh; "
                         "needs root); Open MPI over TCP, MPICH over UCX's TCP on eth0, Tern over "
                         "udp; rank i bound to core i (implies --net)")
    ap.add_argument("--mtu", type=int, default=None, metavar="BYTES",
                    help="with --netns: set this MTU on every link of the namespaces' network "
                         "(default: the veths' 1500; HPC Ethernet often runs 9000)")
    ap.add_argument("--settle", type=float, default=0, metavar="NS",
                    help="before each run, wait until the core-to-core cache-line round trip "
                         "(bench/core_rtt.c) is at most NS nanoseconds: on a VM the host "
                         "moves the virtual CPUs, and in its slow phases every library runs "
                         "several times slower (default 0: only record it)")
    ap.add_argument("--settle-max", type=float, default=120, metavar="SEC",
                    help="longest wait for --settle before running anyway (default 120)")
    ap.add_argument("--settle-retries", type=int, default=3, metavar="N",
                    help="with --settle, run a repetition again (up to N times) when the "
                         "round trip right after it says the host turned slow (default 3)")
    ap.add_argument("--no-install", action="store_true",
                    help="do not apt-get install missing Open MPI / MPICH packages")
    opts = ap.parse_args(argv)

    opts.libs = [l.strip() for l in opts.libs.split(",") if l.strip()]
    for l in opts.libs:
        if l not in ALL_LIBS:
            ap.error("unknown library %r (choose from %s)" % (l, ",".join(ALL_LIBS)))
    benches = []
    for b in (b.strip() for b in opts.bench.split(",") if b.strip()):
        if b not in BENCHES and b not in BENCH_GROUPS:
            ap.error("unknown benchmark %r (choose from %s)"
                     % (b, ",".join(list(BENCH_GROUPS) + list(BENCHES))))
        benches += [x for x in BENCH_GROUPS.get(b, [b]) if x not in benches]
    opts.bench = benches
    opts.rma_sync = [x.strip() for x in opts.rma_sync.split(",") if x.strip()]
    opts.rma_win = [x.strip() for x in opts.rma_win.split(",") if x.strip()]
    if not opts.rma_sync or any(x not in RMA_SYNCS for x in opts.rma_sync):
        ap.error("--rma-sync takes some of %s" % ",".join(RMA_SYNCS))
    if not opts.rma_win or any(x not in RMA_WINS for x in opts.rma_win):
        ap.error("--rma-win takes some of %s" % ",".join(RMA_WINS))
    try:
        opts.ranks = [int(x) for x in opts.ranks.split(",") if x.strip()]
    except ValueError:
        ap.error("--ranks takes a comma-separated list of integers")
    if not opts.ranks or min(opts.ranks) < 1 or opts.p2p_ranks < 2:
        ap.error("bad rank count")
    if opts.reps is None:
        opts.reps = 1 if opts.quick else 5
    if opts.reps < 1:
        ap.error("--reps must be >= 1")
    if opts.timeout is None:
        opts.timeout = 120.0 if opts.quick else 180.0
    if opts.iter_scale is None and opts.quick:
        opts.iter_scale = 0.1
    if opts.budget is None and opts.quick:
        opts.budget = 0.05
    if opts.tern_build is None:
        opts.tern_build = os.path.join(REPO, "build")
    opts.tern_build = os.path.abspath(opts.tern_build)
    if opts.workdir is None:
        user = os.environ.get("USER") or str(os.getuid())
        opts.workdir = os.path.join("/tmp", "tern-bench-compare-" + user)
    opts.workdir = os.path.abspath(opts.workdir)
    if opts.loss is not None:
        opts.net = True
        if not 0 <= opts.loss <= 100:
            ap.error("--loss takes a percentage")
    if opts.netns:
        opts.net = True
        if opts.loss is not None:
            ap.error("--netns and --loss do not combine yet")
        if any(BENCHES[b][1] == "coll" for b in opts.bench):
            ap.error("--netns runs the point-to-point and one-sided benchmarks only")
    if opts.mtu is not None and (not opts.netns or not 576 <= opts.mtu <= 65535):
        ap.error("--mtu takes 576..65535 and needs --netns")
    if opts.latency_target is None:
        opts.latency_target = 0.7 if opts.net else 1.0
    if opts.ompi_rma_args is None:
        opts.ompi_rma_args = OMPI_RMA_NET_ARGS if opts.net else OMPI_RMA_SHM_ARGS
    opts.ompi_rma_args = shlex.split(opts.ompi_rma_args)
    return opts


# ---------------------------------------------------------- loss namespace

LOSS_NS = "tern-bench-loss"


def ns_run(args, check=True):
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), (r.stdout + r.stderr).strip()))
    return r


def loss_ns_up():
    ns_run(["ip", "netns", "del", LOSS_NS], check=False)
    ns_run(["ip", "netns", "add", LOSS_NS])
    ns_run(["ip", "-n", LOSS_NS, "link", "set", "lo", "up"])


def loss_ns_set(pct):
    """Drop pct % of the UDP and TCP packets sent on the namespace's
    loopback (0: remove the rule)."""
    ns_run(["ip", "netns", "exec", LOSS_NS, "nft", "delete", "table", "inet", "tern_bench"],
           check=False)
    if pct <= 0:
        return
    rules = ("table inet tern_bench {\n chain out {\n"
             "  type filter hook output priority 0; policy accept;\n"
             "  meta l4proto { tcp, udp } numgen random mod 10000 < %d drop\n }\n}\n"
             % int(round(pct * 100)))
    r = subprocess.run(["ip", "netns", "exec", LOSS_NS, "nft", "-f", "-"], input=rules,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("nft: " + r.stderr.strip())


def loss_ns_down():
    ns_run(["ip", "netns", "del", LOSS_NS], check=False)


# ------------------------------------------------------- namespaces as nodes

NETNS_PREFIX = "tbn"
NETNS_CLUSTER = os.path.join(REPO, "tests", "net", "netns_cluster.sh")
NETNS_AGENT = os.path.join(REPO, "bench", "netns_agent.sh")


def netns_up(n, mtu=None):
    """n namespaces joined by one bridged network (every link at mtu when
    given): their names and the address of each one's eth0."""
    ns_run([NETNS_CLUSTER, "down", NETNS_PREFIX], check=False)
    ns_run([NETNS_CLUSTER, "up", NETNS_PREFIX, str(n), "1"])
    if mtu is not None:
        ns_run([NETNS_CLUSTER, "mtu", NETNS_PREFIX, str(mtu)])
    names = ["%s-n%d" % (NETNS_PREFIX, i) for i in range(n)]
    ips = []
    for name in names:
        out = subprocess.run(["ip", "-n", name, "-4", "-o", "addr", "show", "eth0"],
                             capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"inet (\d+\.\d+\.\d+\.\d+)/", out)
        if not m:
            raise RuntimeError("no address on %s's eth0" % name)
        ips.append(m.group(1))
    return {"names": names, "ips": ips}


def netns_down():
    ns_run([NETNS_CLUSTER, "down", NETNS_PREFIX], check=False)


def measure(opts, libs, jobs, bench_args, cores, env, prefix, tag, nodes=None):
    """Runs every job (bench, nranks, extra program arguments) opts.reps
    times per library; returns results[job][lib]."""
    # results[job][lib] = {"vals": {key: [..]}, "bad": set(), "status": str}
    results = {j: {l: {"vals": {}, "bad": set(), "status": "ok", "fails": [], "rtt": []}
                   for l in opts.libs} for j in jobs}
    rawdir = os.path.join(opts.workdir, "raw" + ("-" + tag if tag else ""))
    os.makedirs(rawdir, exist_ok=True)
    for f in os.listdir(rawdir):  # outputs of an earlier invocation
        if f.endswith(".txt"):
            os.unlink(os.path.join(rawdir, f))

    for rep in range(opts.reps):
        order = opts.libs[rep % len(opts.libs):] + opts.libs[:rep % len(opts.libs)]
        for (b, n, extra) in jobs:
            name = " ".join((b,) + extra)
            for lname in order:
                lib = libs[lname]
                res = results[(b, n, extra)][lname]
                if res["status"] == "TIMEOUT" and not opts.retry_timeouts:
                    log("[rep %d/%d] %-9s n=%d %-8s skipped (timed out before)"
                        % (rep + 1, opts.reps, name, n, lname))
                    continue
                if lib.error or b not in lib.exes:
                    res["status"] = "FAIL"
                    if rep == 0:
                        res["fails"].append(("unavailable: " + lib.error) if lib.error else
                                            ("build failed: " + tail(lib.build_errors.get(b, "?"), 5)))
                    continue
                lib_args = (opts.ompi_rma_args if lname == "openmpi" and BENCHES[b][1] == "rma"
                            else [])
                cmd = lib.launch_cmd(n, lib.exes[b], bench_args + list(extra), cores, opts.bind,
                                     opts.net, prefix, nodes, lib_args)
                # With --settle, a run after which the host is in a slow
                # phase may have run in it (phases turn within seconds):
                # it is run again, up to --settle-retries times.
                for attempt in range(opts.settle_retries + 1):
                    rtt = settle(opts, opts.probe)
                    status, out, err, secs = run_once(cmd, opts.timeout, env)
                    after = probe_rtt(opts.probe) if opts.settle else None
                    if after is None or after <= opts.settle or status != "ok":
                        break
                    if attempt < opts.settle_retries:
                        log("   core round trip %.0f ns after the run: running it again" % after)
                res["rtt"].append(rtt)
                rawname = os.path.join(rawdir, "%s-%s-n%d-rep%d.txt"
                                       % (lname, "-".join((b,) + extra[1::2]), n, rep + 1))
                with open(rawname, "w") as f:
                    f.write("$ %s\n# status: %s, %.1f s, core round trip before: %s ns, "
                            "after: %s ns\n%s\n# --- stderr ---\n%s\n"
                            % (" ".join(cmd), status, secs,
                               "%.0f" % rtt if rtt is not None else "-",
                               "%.0f" % after if after is not None else "-", out, err))
                rows, bad = parse(b, out)
                for k, v in rows.items():
                    res["vals"].setdefault(k, []).append(v)
                res["bad"] |= bad
                if status != "ok":
                    res["status"] = status
                    res["fails"].append("rep %d: %s after %.1f s (%s)\n%s"
                                        % (rep + 1, status, secs, rawname, tail(err, 8)))
                log("[rep %d/%d] %-9s n=%d %-8s %-7s %6.1f s"
                    % (rep + 1, opts.reps, name, n, lname, status, secs))

    return results


def loss_summary(opts, jobs, phase_results):
    """Mean latency over 1 B - 64 KiB and mean bandwidth over 1-4 MiB (of the
    per-size medians), lossless and with loss, and their ratio."""
    def mean_of(results, bench, lo, hi, lib):
        for job in jobs:
            if job[0] == bench:
                vals = results[job][lib]["vals"]
                meds = [statistics.median(v) for k, v in vals.items()
                        if k != "-" and lo <= k <= hi and v]
                return statistics.mean(meds) if meds else None
        return None

    header = ["library", "lat 1B-64K (us)", "with loss", "ratio",
              "bw 1-4M (MB/s)", "with loss", "ratio"]
    rows = []
    for lib in opts.libs:
        row = [lib]
        for bench, lo, hi in (("latency", 1, 65536), ("bw", 1 << 20, 4 << 20)):
            a = mean_of(phase_results[0], bench, lo, hi, lib)
            b = mean_of(phase_results[1], bench, lo, hi, lib)
            row += ["%.1f" % a if a else "-", "%.1f" % b if b else "-",
                    "%.2f" % (b / a) if a and b else "-"]
        rows.append(row)
    return header, rows


def main(argv):
    opts = parse_args(argv)
    cores = ncores()
    libs = make_libs(opts)
    ensure_packages(libs, opts)
    build(libs, opts.bench, opts)
    opts.probe = build_probe(opts)

    bench_args = []
    if opts.iter_scale is not None:
        bench_args += ["-i", "%g" % opts.iter_scale]
    if opts.budget is not None:
        bench_args += ["-t", "%g" % opts.budget]
    if opts.sizes:
        bench_args += ["-m", opts.sizes]

    jobs = []  # (bench, nranks, extra program arguments)
    for b in opts.bench:
        if BENCHES[b][1] == "p2p":
            jobs.append((b, opts.p2p_ranks, ()))
        elif BENCHES[b][1] == "rma":
            syncs = [s for s in opts.rma_sync if b != "put_bibw" or s in RMA_BIBW_SYNCS]
            if not syncs:
                log("put_bibw: none of --rma-sync %s applies (fence, pscw): skipped"
                    % ",".join(opts.rma_sync))
            jobs.extend((b, opts.p2p_ranks, ("-s", s, "-w", w))
                        for s in syncs for w in opts.rma_win)
        else:
            jobs.extend((b, n, ()) for n in opts.ranks)

    env = dict(os.environ)
    started = time.monotonic()
    prefix = []
    phases = [("", None)]
    if opts.loss is not None:
        prefix = ["ip", "netns", "exec", LOSS_NS]
        phases = [("lossless", 0.0), ("loss %g%%" % opts.loss, opts.loss)]
        loss_ns_up()
    nodes = None
    if opts.netns:
        nodes = netns_up(opts.p2p_ranks, opts.mtu)
        phases = [("netns" + (", MTU %d" % opts.mtu if opts.mtu else ""), None)]
    phase_results = []
    try:
        for tag, pct in phases:
            if pct is not None:
                loss_ns_set(pct)
                log("== phase: %s" % tag)
            phase_results.append(measure(opts, libs, jobs, bench_args, cores, env, prefix,
                                         tag.replace(" ", "").replace(",", "").replace("%", "pct"), nodes))
    finally:
        if opts.loss is not None:
            loss_ns_down()
        if opts.netns:
            netns_down()
    results = phase_results[-1]

    versions = lib_versions(libs)
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    cmdline = "bench/compare.sh " + " ".join(shlex.quote(a) for a in argv)
    info = [
        "host: %s, %s, %d cores available" % (platform.node(), cpu_model(), cores),
        "libraries: " + "; ".join("%s = %s" % (k, versions[k]) for k in opts.libs),
        "command: %s" % cmdline,
        "repetitions: %d, benchmark options: %s, binding: %s, total %.0f s, %s"
        % (opts.reps, " ".join(bench_args) or "(defaults)", opts.bind,
           time.monotonic() - started, now),
    ]

    text_out = ["# " + line for line in info]
    md_out = ["## Benchmark results", ""] + ["- " + line.replace("command: ", "command: `", 1)
                                               + ("`" if line.startswith("command: ") else "")
                                               for line in info]
    md_out.append("- `*` marks sizes where Tern misses the target (latency above %g x, "
                  "bandwidth or rate below 1.0 x the best of the other libraries); "
                  "tern/best is Tern's median divided by the best other median."
                  % opts.latency_target)
    total_miss, any_compared = 0, False
    for (tag, _), results in zip(phases, phase_results):
        for job in jobs:
            b, n, extra = job
            header, rows, misses, compared = make_table(b, n, opts.libs, results[job],
                                                        target_ratio(b, opts))
            total_miss += misses
            any_compared = any_compared or compared > 0
            title = table_title(b, n, opts, extra) + (" [%s]" % tag if tag else "")
            summary = ("  (misses: %d of %d sizes)" % (misses, compared)) if compared else ""
            text_out += ["", "== " + title + summary, render_text(header, rows)]
            md_out += ["", "### " + title + summary, "", render_md(header, rows)]
            phases = rtt_line(opts.libs, results[job])
            if phases:
                text_out.append("  " + phases)
                md_out += ["", "- " + phases]
            for l in opts.libs:
                fails = results[job][l]["fails"]
                if fails:
                    note = "%s: %s" % (l, fails[0].splitlines()[0])
                    text_out.append("  ! " + note)
                    md_out.append("")
                    md_out.append("> %s" % note)
    if any_compared:
        text_out += ["", "# '*' = Tern misses the target at that size; total misses: %d" % total_miss]
    if len(phase_results) == 2:
        header, rows = loss_summary(opts, jobs, phase_results)
        title = "loss summary: lossless vs %g%% loss, per library" % opts.loss
        text_out += ["", "== " + title, render_text(header, rows)]
        md_out += ["", "### " + title, "", render_md(header, rows)]
    text_out.append("# raw outputs: %s/raw*" % opts.workdir)

    print("\n".join(text_out))
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write("\n".join(md_out) + "\n")
        log("markdown written to %s" % opts.markdown)
    # failure details for the log
    for (b, n, extra) in jobs:
        for l in opts.libs:
            for fmsg in results[(b, n, extra)][l]["fails"]:
                log("--- %s %s n=%d: %s" % (l, " ".join((b,) + extra), n, fmsg))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
