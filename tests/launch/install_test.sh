#!/bin/sh
# cmake --install to a fresh prefix, then build and run with the installed
# wrappers and launcher only (also -lmpi through libmpi.so), and move the
# prefix to check the install is relocatable.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
p=$tmp/prefix
"$p/bin/mpicc" "$src" -o "$tmp/prog"
"$p/bin/mpiexec" -n 2 --timeout 60 "$tmp/prog" 2 | grep -q " No Errors"
cc "$src" -I"$p/include" -L"$p/lib" -lmpi -Wl,-rpath,"$p/lib" -o "$tmp/prog_lmpi"
ldd "$tmp/prog_lmpi" | grep -q "$p/lib/libmpi_abi.so.1"
"$p/bin/mpirun" -n 2 --timeout 60 "$tmp/prog_lmpi" 2 | grep -q " No Errors"
"$p/bin/tern-info" | grep -q "^Tern "
mv "$p" "$tmp/moved"
"$tmp/moved/bin/mpicc" "$src" -o "$tmp/prog2"
"$tmp/moved/bin/mpiexec" -n 2 --timeout 60 "$tmp/prog2" 2 | grep -q " No Errors"
"$tmp/moved/bin/tern-info" --unsupported >/dev/null
echo "install test: ok"
