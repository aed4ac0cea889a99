#!/usr/bin/env bash
# Fuzzes the analyzer: builds its libFuzzer targets with clang, AddressSanitizer
# and UBSan into build-fuzz, seeds a corpus from real captures, and runs each
# target for a bounded time. A finding (crash, sanitizer report, an error
# that does not name its byte offset) fails the script and is kept as
# build-fuzz/findings/<target>-crash-*; reproduce with
#   build-fuzz/test/fuzz/fuzz_<target> FILE
# and add the file to test/unit/analyzer/corrupt/ (a regression test).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     default 15 (CI); FUZZ_SEEDS_FROM=build
#
# Seeds come from a normal build (FUZZ_SEEDS_FROM, default build; built if
# missing): the golden and views captures, and simcuda apps recorded by the agent.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-15}"
seeds_from="${FUZZ_SEEDS_FROM:-build}"
targets=(reader info report stacks trace dump advise html)

# trace's annotation fitting over times taken straight from the bytes (issue 27).
targets+=(trace_annotations)

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROF_FUZZ=ON -DPROF_SANITIZE=address,undefined >/dev/null
cmake --build build-fuzz -- -j"$(nproc)" "${targets[@]/#/fuzz_}"

[[ -x "$seeds_from/lib/libprof.so" ]] || BUILD_DIR="$seeds_from" scripts/build.sh >/dev/null
seeds=build-fuzz/corpus/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
"$seeds_from/test/unit/analyzer/make_golden_capture" "$seeds/golden.pb"
"$seeds_from/test/unit/views/make_views_capture" "$seeds/views.pb" >/dev/null
for app in nvtx_training multithread_launch copies graph_replay; do
  # Short runs: the fuzzer mutates small files faster.
  LD_PRELOAD="$seeds_from/lib/libprof.so" LD_LIBRARY_PATH="$seeds_from/simcuda/lib" PROF_LOG=quiet \
    PROF_OUTPUT="$seeds/$app.pb" SIMCUDA_KERNEL_NS="default=1000" "$seeds_from/simcuda/apps/$app" >/dev/null
done
ls -l "$seeds" >&2

failed=()
mkdir -p build-fuzz/findings
for target in "${targets[@]}"; do
  corpus="build-fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "== fuzz_$target for ${seconds}s" >&2
  if ! ASAN_OPTIONS=detect_leaks=1 build-fuzz/test/fuzz/fuzz_"$target" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="build-fuzz/findings/$target-" "$corpus" "$seeds" 2> "build-fuzz/findings/$target.log"; then
    failed+=("$target")
    tail -n 40 "build-fuzz/findings/$target.log" >&2
  fi
  grep -E "^stat::(number_of_executed_units|new_units_added)" "build-fuzz/findings/$target.log" | tr '\n' ' ' >&2
  echo >&2
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (build-fuzz/findings/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no findings" >&2
