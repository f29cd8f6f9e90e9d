#!/usr/bin/env python3
"""Tests of what other build systems use to find and use Tern
(docs/build-glue.md): the compiler wrappers' query options and compiler
choice, the tools' --version, the pkg-config files, the CMake package
(find_package(Tern)) and CMake's FindMPI pointed at Tern.  Every program
built here runs under Tern's launcher and must print " No Errors".

    glue_test.py --build DIR --src DIR --version V --cmake CMAKE
                 --generator G [--make-program P] [--pkg-config PKG] TEST

TEST: wrappers, versions, pkgconfig, cmake_package, findmpi.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ARGS = None
COMPILER_VARS = {
    "CC": ["TERN_CC", "MPICH_CC", "OMPI_CC", "MPICC_CC", "CC"],
    "CXX": ["TERN_CXX", "MPICH_CXX", "OMPI_CXX", "MPICXX_CXX", "CXX"],
}


class Failure(Exception):
    pass


class Result:
    def __init__(self, cmd, rc, out, err):
        self.cmd, self.returncode, self.stdout, self.stderr = cmd, rc, out, err


def check(cond, what, res=None):
    if not cond:
        msg = "CHECK failed: " + what
        if res is not None:
            msg += "\n--- command: %s\n--- rc: %s\n--- stdout:\n%s\n--- stderr:\n%s" % (
                " ".join(shlex.quote(c) for c in res.cmd), res.returncode,
                res.stdout[-6000:], res.stderr[-6000:])
        raise Failure(msg)


def run(cmd, env=None, cwd=None, timeout=120):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return Result(cmd, p.returncode, p.stdout.decode(errors="replace"),
                  p.stderr.decode(errors="replace"))


def run_ok(cmd, env=None, cwd=None, quiet=True):
    """Run cmd; it must exit 0 (and print nothing on stderr when quiet)."""
    res = run(cmd, env=env, cwd=cwd)
    check(res.returncode == 0, "exit 0", res)
    if quiet:
        check(res.stderr == "", "nothing on stderr", res)
    return res


def clean_env():
    """Our environment without anything that chooses a compiler or an MPI."""
    env = dict(os.environ)
    for names in COMPILER_VARS.values():
        for v in names:
            env.pop(v, None)
    for v in ("PKG_CONFIG_PATH", "MPI_HOME", "I_MPI_ROOT", "CMAKE_PREFIX_PATH"):
        env.pop(v, None)
    return env


def real(path):
    return os.path.realpath(path)


def install(tmp):
    """cmake --install into tmp, then move the prefix (installs must be
    relocatable); returns the prefix's final (real) path."""
    run_ok([ARGS.cmake, "--install", ARGS.build, "--prefix",
            os.path.join(tmp, "prefix")], quiet=False)
    moved = os.path.join(tmp, "moved")
    os.rename(os.path.join(tmp, "prefix"), moved)
    return real(moved)


def libmpi_of(prog):
    """Where the dynamic loader finds libmpi_abi.so.1 for prog (real path)."""
    res = run_ok(["ldd", prog], env=clean_env(), quiet=False)
    m = re.search(r"^\s*libmpi_abi\.so\.1 => (\S+)", res.stdout, re.M)
    check(m is not None, "%s needs libmpi_abi.so.1" % prog, res)
    return real(m.group(1))


def run_job(mpiexec, prog, n=2, args=None):
    """Run prog on n ranks with mpiexec; it must print " No Errors"."""
    res = run([mpiexec, "-n", str(n), "--timeout", "60", prog] +
              (args if args is not None else [str(n)]), env=clean_env())
    check(res.returncode == 0 and " No Errors" in res.stdout, "the job ran well", res)
    check(not re.search(r"^tern-run: ", res.stderr, re.M), "tern-run said nothing", res)


def cmake_configure(src, bdir, defs):
    cmd = [ARGS.cmake, "-S", src, "-B", bdir, "-G", ARGS.generator]
    if ARGS.make_program:
        cmd.append("-DCMAKE_MAKE_PROGRAM=" + ARGS.make_program)
    return run(cmd + ["-D%s=%s" % kv for kv in defs.items()], env=clean_env())


def cmake_build(bdir):
    run_ok([ARGS.cmake, "--build", bdir, "-j", "2"], env=clean_env(), quiet=False)


def read_vars(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            out[k] = v
    return out


# ------------------------------------------------------------------ tests
def test_wrappers():
    """-show/-showme, every -showme:WHAT, -compile_info/-link_info,
    --version, the compiler's precedence, and a real build through an
    override."""
    b, inc, lib = ARGS.build, os.path.join(ARGS.src, "include"), os.path.join(ARGS.build, "lib")
    link = ["-L" + lib, "-Wl,-rpath," + lib, "-lmpi_abi"]
    wrappers = (("mpicc", "C", "cc", "CC"), ("mpicxx", "C++", "c++", "CXX"),
                ("mpic++", "C++", "c++", "CXX"))
    for name, lang, default, var in wrappers:
        w = os.path.join(b, "bin", name)

        def out(*args, env=None):
            return run_ok([w] + list(args), env=env or clean_env()).stdout

        def words(*args, env=None):
            return shlex.split(out(*args, env=env))

        def eq(got, want, what):
            if got != want:
                raise Failure("%s %s: got %r, want %r" % (name, what, got, want))

        # -showme:WHAT, Open MPI's parts (the other arguments are ignored)
        for pre in ("-showme:", "--showme:"):
            eq(out(pre + "compile"), "-I%s\n" % inc, pre + "compile")
            eq(out(pre + "link"), " ".join(link) + "\n", pre + "link")
        eq(out("-showme:compile", "x.c", "-o", "x"), "-I%s\n" % inc, "-showme:compile x.c")
        eq(out("-showme:incdirs"), inc + "\n", "-showme:incdirs")
        eq(out("-showme:libdirs"), lib + "\n", "-showme:libdirs")
        eq(out("-showme:libs"), "mpi_abi\n", "-showme:libs")
        eq(out("-showme:command"), default + "\n", "-showme:command")
        eq(out("-showme:version"), "%s: Tern %s (Language: %s)\n" % (name, ARGS.version, lang),
           "-showme:version")
        h = out("-showme:help")
        for q in ("-show,", "-showme:compile", "-showme:link", "-showme:command",
                  "-showme:incdirs", "-showme:libdirs", "-showme:libs", "-showme:version",
                  "-compile_info", "-link_info", "--version"):
            check(q in h, "%s -showme:help names %s" % (name, q))
        res = run([w, "-showme:bogus"], env=clean_env())
        check(res.returncode == 1 and res.stdout == "" and res.stderr ==
              "%s: unknown option -showme:bogus (-showme:help lists them)\n" % name,
              "%s: an unknown -showme: is an error" % name, res)

        # the whole command: -show, -showme (MPICH and Open MPI)
        for show in ("-show", "-showme", "--showme"):
            eq(words(show), [default, "-I" + inc] + link, show)
        eq(words("-show", "a.c", "-o", "a"), [default, "-I" + inc, "a.c", "-o", "a"] + link,
           "-show a.c -o a")
        for nolink in ("-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"):
            eq(words("-show", nolink, "a.c"), [default, "-I" + inc, nolink, "a.c"],
               "-show %s a.c" % nolink)
        for ci in ("-compile_info", "-compile-info"):
            eq(words(ci, "a.c", "-o", "a"), [default, "-I" + inc, "a.c", "-o", "a"], ci)
        for li in ("-link_info", "-link-info"):
            eq(words(li), [default, "-I" + inc] + link, li)
            eq(words(li, "-c", "a.c"), [default, "-I" + inc, "-c", "a.c"] + link, li + " -c")
        odd = ["a b.c", "it's", "", "$HOME", "-DX=\"y z\""]
        eq(words("-show", *odd), [default, "-I" + inc] + odd + link, "-show, quoted words")

        # --version: Tern's line, then exactly the compiler's own output
        res = run_ok([w, "--version"], env=clean_env())
        comp = run_ok([default, "--version"], env=clean_env())
        first, _, rest = res.stdout.partition("\n")
        eq(first, "%s (Tern) %s: the %s compiler wrapper of Tern, compiling with %s" %
           (name, ARGS.version, lang, default), "--version, first line")
        eq(rest, comp.stdout, "--version, the compiler's lines")
        check(rest.strip() != "", "%s --version shows the compiler's version" % name)

        # the compiler: the first variable set (and not empty) wins
        names = COMPILER_VARS[var]
        env = dict(clean_env(), **{v: "comp-" + v for v in names})
        for v in names:
            eq(out("-showme:command", env=env), "comp-%s\n" % v, "with %s set" % v)
            eq(words("-show", "-c", "a.c", env=env)[0], "comp-" + v, "-show with %s set" % v)
            env[v] = ""
        eq(out("-showme:command", env=env), default + "\n", "with every variable empty")
        # CC=mpicc is skipped (`CC=mpicc make`); TERN_CC naming the wrapper itself
        # is an error, not an endless loop
        for wname in ("mpicc", "mpicxx", "/opt/x/bin/mpicc.tern", "mpic++"):
            env = dict(clean_env(), **{var: wname})
            eq(out("-showme:command", env=env), default + "\n", "%s=%s skipped" % (var, wname))
        env = dict(clean_env(), **{names[0]: w + " -O2"})
        res = run([w, "-c", "x.c"], env=env)
        check(res.returncode == 1 and "%s=%s -O2 names %s itself" % (names[0], w, name)
              in res.stderr, "%s naming %s itself is an error" % (names[0], name), res)

    # a real build through a multi-word override, run under tern-run
    with tempfile.TemporaryDirectory() as tmp:
        for name, var, default, src in (
                ("mpicc", "OMPI_CC", "cc", ARGS.prog),
                ("mpicxx", "MPICH_CXX", "c++", os.path.join(ARGS.here, "glue", "hello.cc"))):
            marked = os.path.join(tmp, "marked" + os.path.splitext(src)[1])
            with open(marked, "w") as f:
                f.write('#ifndef TN_MARK\n#error "the compiler of %s was not used"\n#endif\n'
                        '#include "%s"\n' % (var, src))
            prog = os.path.join(tmp, name + "_prog")
            env = dict(clean_env(), **{var: default + " -DTN_MARK"})
            run_ok([os.path.join(b, "bin", name), marked, "-o", prog], env=env, quiet=False)
            check(libmpi_of(prog) == real(os.path.join(lib, "libmpi_abi.so.1")),
                  "%s's program uses the build tree's library" % name)
            run_job(os.path.join(b, "bin", "mpiexec"), prog)


def test_versions():
    """tern-info, tern-run (mpiexec) and the wrappers name Tern's version."""
    b, v = ARGS.build, ARGS.version
    for cmd, want in (
            (["tern-info", "--version"], "tern-info (Tern) %s\n" % v),
            (["tern-run", "--version"], "tern-run (Tern) %s\n" % v),
            (["mpiexec", "--version"], "tern-run (Tern) %s\n" % v),
            (["mpicc", "-showme:version"], "mpicc: Tern %s (Language: C)\n" % v)):
        res = run_ok([os.path.join(b, "bin", cmd[0])] + cmd[1:], env=clean_env())
        check(res.stdout == want, "%s prints %r" % (" ".join(cmd), want), res)
    res = run_ok([os.path.join(b, "bin", "tern-info"), "--help"], env=clean_env())
    check("--version" in res.stdout, "tern-info --help lists --version", res)


def norm_flags(words):
    """Flags with their paths made real, to compare two spellings of a path."""
    out = []
    for w in words:
        for pre in ("-Wl,-rpath,", "-I", "-L"):
            if w.startswith(pre):
                w = pre + real(w[len(pre):])
                break
        out.append(w)
    return out


def test_pkgconfig():
    """mpi.pc and tern.pc of the build tree and of a moved install: the same
    flags as mpicc, the version, the launcher; a program built with them
    uses Tern's library and runs under Tern's mpiexec."""
    pkg = ARGS.pkg_config
    with tempfile.TemporaryDirectory() as tmp:
        trees = (("build tree", ARGS.build, os.path.join(ARGS.build, "lib", "pkgconfig")),
                 ("install", None, None))
        for what, prefix, pcdir in trees:
            if prefix is None:
                prefix = install(tmp)
                pcdir = os.path.join(prefix, "lib", "pkgconfig")
            env = dict(clean_env(), PKG_CONFIG_PATH=pcdir)
            mpicc = os.path.join(prefix, "bin", "mpicc")
            want = norm_flags(shlex.split(run_ok([mpicc, "-showme:compile"]).stdout) +
                              shlex.split(run_ok([mpicc, "-showme:link"]).stdout))
            for mod in ("mpi", "tern"):
                got = run_ok([pkg, "--cflags", "--libs", mod], env=env)
                check(norm_flags(shlex.split(got.stdout)) == want,
                      "%s: pkg-config --cflags --libs %s = mpicc's flags %s" % (what, mod, want),
                      got)
                ver = run_ok([pkg, "--modversion", mod], env=env)
                check(ver.stdout == ARGS.version + "\n", "%s: %s version" % (what, mod), ver)
                for tool in ("mpiexec", "mpicc", "mpicxx"):
                    got = run_ok([pkg, "--variable=" + tool, mod], env=env)
                    check(real(got.stdout.strip()) == real(os.path.join(prefix, "bin", tool)),
                          "%s: %s's %s variable" % (what, mod, tool), got)
            flags = shlex.split(run_ok([pkg, "--cflags", "--libs", "mpi"], env=env).stdout)
            prog = os.path.join(tmp, "prog")
            run_ok(["cc", ARGS.prog, "-o", prog] + flags, env=clean_env(), quiet=False)
            check(libmpi_of(prog) == real(os.path.join(prefix, "lib", "libmpi_abi.so.1")),
                  "%s: the program uses this tree's libmpi_abi.so.1" % what)
            mpiexec = run_ok([pkg, "--variable=mpiexec", "mpi"], env=env).stdout.strip()
            run_job(mpiexec, prog)
            os.unlink(prog)


def test_cmake_package():
    """find_package(Tern) from a moved install (CMAKE_PREFIX_PATH) and from
    the build tree (Tern_DIR): Tern::mpi builds C and C++ programs that use
    Tern's library and run under Tern_MPIEXEC; a version Tern is not is
    refused."""
    proj = os.path.join(ARGS.here, "glue", "find_tern")
    with tempfile.TemporaryDirectory() as tmp:
        prefix = install(tmp)
        cases = (("install", prefix, {"CMAKE_PREFIX_PATH": prefix, "TN_WANT": ARGS.version}),
                 ("build tree", ARGS.build,
                  {"Tern_DIR": os.path.join(ARGS.build, "lib", "cmake", "Tern")}))
        for what, root, defs in cases:
            bdir = os.path.join(tmp, "b-" + what.replace(" ", "_"))
            outf = os.path.join(tmp, "found-" + what.replace(" ", "_"))
            defs = dict(defs, TN_PROG=ARGS.prog, TN_OUT=outf)
            res = cmake_configure(proj, bdir, defs)
            check(res.returncode == 0, "%s: find_package(Tern) configures" % what, res)
            found = read_vars(outf)
            check(found["version"] == ARGS.version, "%s: Tern_VERSION %s" % (what, found))
            for tool in ("mpiexec", "mpicc", "mpicxx"):
                check(real(found[tool]) == real(os.path.join(root, "bin", tool)),
                      "%s: Tern_%s is Tern's: %s" % (what, tool.upper(), found))
            check(real(found["library"]) == real(os.path.join(root, "lib", "libmpi_abi.so.1")),
                  "%s: Tern::mpi is Tern's library: %s" % (what, found))
            cmake_build(bdir)
            for prog in ("prog", "prog_cxx"):
                path = os.path.join(bdir, prog)
                check(libmpi_of(path) == real(os.path.join(root, "lib", "libmpi_abi.so.1")),
                      "%s: %s uses Tern's library" % (what, prog))
                run_job(found["mpiexec"], path)
        res = cmake_configure(proj, os.path.join(tmp, "b-toonew"),
                              {"CMAKE_PREFIX_PATH": prefix, "TN_WANT": "99.0",
                               "TN_PROG": ARGS.prog, "TN_OUT": os.path.join(tmp, "x")})
        check(res.returncode != 0 and "99.0" in res.stderr and "Tern" in res.stderr,
              "find_package(Tern 99.0) is refused", res)


def test_findmpi():
    """CMake's FindMPI with MPI_HOME (or MPIEXEC_EXECUTABLE) pointing at Tern
    picks Tern's mpiexec, wrappers and library for C and C++, even with
    another MPI installed in /usr (docs/build-glue.md)."""
    proj = os.path.join(ARGS.here, "glue", "find_mpi")
    with tempfile.TemporaryDirectory() as tmp:
        prefix = install(tmp)
        cases = (("MPI_HOME", prefix, {"MPI_HOME": prefix}),
                 ("MPIEXEC_EXECUTABLE", prefix,
                  {"MPIEXEC_EXECUTABLE": os.path.join(prefix, "bin", "mpiexec")}),
                 ("MPI_HOME=build tree", ARGS.build, {"MPI_HOME": ARGS.build}))
        for what, root, defs in cases:
            tag = re.sub(r"\W", "_", what)
            bdir = os.path.join(tmp, "b-" + tag)
            outf = os.path.join(tmp, "found-" + tag)
            res = cmake_configure(proj, bdir, dict(defs, TN_PROG=ARGS.prog, TN_OUT=outf))
            check(res.returncode == 0, "%s: find_package(MPI) configures" % what, res)
            found = read_vars(outf)
            lib = real(os.path.join(root, "lib", "libmpi_abi.so.1"))
            for key, want in (("mpiexec", os.path.join(root, "bin", "mpiexec")),
                              ("c_compiler", os.path.join(root, "bin", "mpicc")),
                              ("cxx_compiler", os.path.join(root, "bin", "mpicxx"))):
                check(real(found[key]) == real(want), "%s: FindMPI's %s is Tern's %s: %s" %
                      (what, key, want, found))
            for key in ("c_libraries", "cxx_libraries"):
                libs = found[key].split(";")
                check(len(libs) == 1 and real(libs[0]) == lib,
                      "%s: FindMPI's %s is Tern's library alone: %s" % (what, key, found))
            cmake_build(bdir)
            for prog in ("prog", "prog_cxx"):
                path = os.path.join(bdir, prog)
                check(libmpi_of(path) == lib, "%s: %s uses Tern's library" % (what, prog))
                run_job(found["mpiexec"], path)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--prog", required=True, help="an MPI program in C (launch_check.c)")
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--generator", required=True)
    ap.add_argument("--make-program", default="")
    ap.add_argument("--pkg-config", default="pkg-config")
    ap.add_argument("test")
    ARGS = ap.parse_args()
    ARGS.build = os.path.abspath(ARGS.build)
    ARGS.src = os.path.abspath(ARGS.src)
    ARGS.here = os.path.dirname(os.path.abspath(__file__))
    fn = globals().get("test_" + ARGS.test)
    if fn is None:
        print("unknown test " + ARGS.test, file=sys.stderr)
        return 2
    try:
        fn()
    except (Failure, subprocess.TimeoutExpired) as e:
        print("glue.%s: %s" % (ARGS.test, e), file=sys.stderr)
        return 1
    print("glue.%s: ok" % ARGS.test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
