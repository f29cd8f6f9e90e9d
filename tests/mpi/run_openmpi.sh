#!/bin/bash
# Build every test program of tests/mpi with Debian's Open MPI (mpicc.openmpi)
# and run the testlist with mpirun.openmpi (lines marked tern_only are
# skipped; lines that differ from an earlier one only in TERN_* settings are
# run once).  This validates the test programs themselves against another
# MPI implementation.
#
#   tests/mpi/run_openmpi.sh [--mpich] [--only REGEX] [--testlist FILE] [-v]
#
#   --mpich     use MPICH (mpicc.mpich / mpirun.mpich) instead
#   --only RE   run only the tests whose name matches RE
#   --testlist  another list in the same format
#   -v          print the output of XFAIL runs too
# Binaries go to $MTEST_BUILD_DIR (default /tmp/tern-mpi-tests-<impl>).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
impl=openmpi
testlist="$here/testlist"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --mpich) impl=mpich ;;
        --only) args+=(--only "$2"); shift ;;
        --testlist) testlist=$2; shift ;;
        -v) args+=(-v) ;;
        *) echo "usage: $0 [--mpich] [--only REGEX] [--testlist FILE] [-v]" >&2; exit 2 ;;
    esac
    shift
done

cc=mpicc.$impl
command -v "$cc" >/dev/null || { echo "$cc not found (apt-get install ${impl/openmpi/openmpi-bin libopenmpi-dev})" >&2; exit 2; }
out=${MTEST_BUILD_DIR:-/tmp/tern-mpi-tests-$impl}
mkdir -p "$out"

# -Wno-stringop-overflow: GCC 12 false positive on MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1)
cflags=(-O2 -g -Wall -Wextra -Werror -Wno-stringop-overflow)
fail=0
for src in "$here"/*.c; do
    prog=$(basename "$src" .c)
    if [ "$src" -nt "$out/$prog" ] || [ "$here/mtest.h" -nt "$out/$prog" ]; then
        echo "cc $prog"
        "$cc" "${cflags[@]}" -o "$out/$prog" "$src" -lpthread -lm || fail=1
    fi
done
[ $fail = 0 ] || { echo "build failed" >&2; exit 1; }

exec python3 "$here/run_one.py" --impl "$impl" --bindir "$out" --testlist "$testlist" "${args[@]}"
