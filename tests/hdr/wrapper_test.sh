#!/bin/sh
# Checks the build-tree compiler wrappers: -show output with and without -c,
# --version passthrough, and compiling, linking and running a C and a C++
# program (in one step and in two).
# Usage: wrapper_test.sh <bin dir> <tests/hdr source dir> <work dir> <lib dir>
set -u
bin=$1 src=$2 work=$3 lib=$4
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

mkdir -p "$work" || exit 1
for w in mpicc mpicxx mpic++; do
    [ -x "$bin/$w" ] || fail "$bin/$w missing or not executable"
done

# -show: link mode adds the library, compile-only mode does not.
s=$("$bin/mpicc" -show -o x x.c) || fail "mpicc -show failed"
case $s in
    *"-I"*"x.c"*"-L$lib"*"-Wl,-rpath,$lib"*"-lmpi_abi"*) ok "mpicc -show: $s" ;;
    *) fail "mpicc -show (link): $s" ;;
esac
for opt in -c -E -S -M -MM -fsyntax-only; do
    s=$("$bin/mpicc" -show $opt x.c)
    case $s in
        *-lmpi_abi* | *-rpath*) fail "mpicc -show $opt links: $s" ;;
        *-I*" $opt x.c") ;;
        *) fail "mpicc -show $opt: $s" ;;
    esac
done
s=$(MPICC_CC=my-cc "$bin/mpicc" -show -c x.c)
case $s in my-cc\ *) ;; *) fail "MPICC_CC ignored: $s" ;; esac
s=$(env -u MPICC_CC CC=mpicc "$bin/mpicc" -show -c x.c)
case $s in mpicc\ *) fail "CC=mpicc makes mpicc call itself: $s" ;; esac
s=$(env -u MPICXX_CXX CXX=/usr/bin/mpicxx "$bin/mpicxx" -show -c x.cpp)
case $s in */mpicxx\ *) fail "CXX=mpicxx makes mpicxx call itself: $s" ;; esac
s=$(MPICXX_CXX=my-cxx "$bin/mpicxx" -show -c x.cpp)
case $s in my-cxx\ *) ;; *) fail "MPICXX_CXX ignored: $s" ;; esac
"$bin/mpicc" --version >/dev/null 2>&1 || fail "mpicc --version"
"$bin/mpicxx" --version >/dev/null 2>&1 || fail "mpicxx --version"

# Build and run.
run() {
    out=$("$@" 2>&1) || { fail "$*: $out"; return 1; }
    return 0
}
run "$bin/mpicc" -o "$work/prog_c" "$src/wrap_prog.c" &&
    run "$work/prog_c" && ok "mpicc: $out"
run "$bin/mpicc" -c -o "$work/prog_c2.o" "$src/wrap_prog.c" &&
    run "$bin/mpicc" -o "$work/prog_c2" "$work/prog_c2.o" &&
    run "$work/prog_c2" && ok "mpicc -c then link: $out"
run "$bin/mpicxx" -o "$work/prog_cxx" "$src/wrap_prog.cpp" &&
    run "$work/prog_cxx" && ok "mpicxx: $out"
run "$bin/mpic++" -o "$work/prog_cxx2" "$src/wrap_prog.cpp" &&
    run "$work/prog_cxx2" && ok "mpic++: $out"
if command -v readelf >/dev/null 2>&1 && [ -f "$work/prog_c" ]; then
    readelf -d "$work/prog_c" | grep -q 'NEEDED.*libmpi_abi\.so\.1' ||
        fail "prog_c does not need libmpi_abi.so.1"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all wrapper checks passed"
