#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test.
#   ./scripts/test.sh            (BUILD_DIR=build-test by default)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh clang
BUILD_DIR=${BUILD_DIR:-build-test}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$BUILD_DIR" -j2
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 --timeout 300
