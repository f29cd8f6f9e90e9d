#!/usr/bin/env bash
# The whole test suite (what CI runs through .ci/run):
#   1. gcc build, warnings as errors, every test (unit, header/ABI, launcher,
#      launch, MPI programs through tern-run);
#   2. clang build, warnings as errors, unit tests;
#   3. ASan/UBSan build, unit tests and the tests labelled "sanitize";
#   4. ThreadSanitizer build: the MPI_THREAD_MULTIPLE programs (threads
#      creating communicators and running collectives and matched probes
#      at once), also traced (TERN_TRACE);
#   5. gcc Release build (-O3, warnings as errors) of the library, the
#      tools and the benchmarks, built only: the optimizer's flow analysis
#      warns where -O2 does not (the test programs are left out: every
#      other stage compiles them).
#   6. libFuzzer build (clang, -DTERN_FUZZ=ON): the harnesses of tests/fuzz
#      only, each fuzzed for 3 s from its seed corpus (docs/fuzzing.md;
#      longer runs are done by hand).
# Installs missing system packages itself.  Build dirs: build-test*.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh clang
start=$(date +%s)

echo "== gcc build and full test suite"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build-test -j2
ctest --test-dir build-test --output-on-failure -j2 --timeout 300

echo "== clang build (warnings as errors) and unit tests"
# LTO off: this stage is for clang's warnings, which come at compile time
CC=clang CXX=clang++ cmake -S . -B build-test-clang -G Ninja -DTERN_LTO=OFF >/dev/null
ninja -C build-test-clang -j2
ctest --test-dir build-test-clang --output-on-failure -j2 -L unit

echo "== ASan/UBSan build: unit tests and sanitize-labelled MPI tests"
cmake -S . -B build-test-asan -G Ninja -DTERN_SANITIZE=ON >/dev/null
ninja -C build-test-asan -j2
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-test-asan --output-on-failure -j2 -L "unit|launch|sanitize" --timeout 300

echo "== ThreadSanitizer build: the MPI_THREAD_MULTIPLE programs"
cmake -S . -B build-test-tsan -G Ninja -DTERN_TSAN=ON >/dev/null
ninja -C build-test-tsan -j2 tern-run tern-trace comm_comm_threads mpitest_thread_multiple
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build-test-tsan --output-on-failure -j2 --timeout 300 \
  -R '^(comm\.comm_threads|mpi\.thread_multiple)\.|^trace\.threads$'

echo "== gcc Release build (-O3, warnings as errors) of the library, tools and benchmarks"
cmake -S . -B build-test-release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build-test-release -j2 tern tern_static tern-run tern-info tern-monitor tern-trace \
    tern-sim tern-coll-plan $(ninja -C build-test-release -t targets all | sed -n 's|^bin/\(tern_[a-z_]*\): C_EXE.*|\1|p') \
    trace_cost monitor_ingest bench_store udp_floor core_rtt

echo "== libFuzzer build (clang): each parser's harness fuzzed for 3 s"
CC=clang CXX=clang++ cmake -S . -B build-test-fuzz -G Ninja -DTERN_FUZZ=ON -DTN_FUZZ_SECONDS=3 >/dev/null
ninja -C build-test-fuzz -j2 fuzz_udp fuzz_pmi fuzz_pmi2 fuzz_config fuzz_am fuzz_status fuzz_tree fuzz_hosts \
    fuzz_rma fuzz_spawn fuzz_sockhs fuzz_nic fuzz_http fuzz_statseg fuzz_wire fuzz_store fuzz_monconf \
    fuzz_trace fuzz_tracejob fuzz_vef fuzz_simgraph fuzz_collplan fuzz_linkemu
ctest --test-dir build-test-fuzz --output-on-failure -j2 -L fuzz

echo "== all test stages passed in $(( $(date +%s) - start )) s"
