#!/usr/bin/env bash
# Build Tern and run its main job: OSU-style latency and bandwidth between
# two ranks over shared memory, and an allreduce over four ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j2
build/bin/tern-run -n 2 build/bin/tern_latency -m 0:1M
build/bin/tern-run -n 2 build/bin/tern_bw -m 1:4M
build/bin/tern-run -n 4 build/bin/tern_allreduce -m 4:64K
