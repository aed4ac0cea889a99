#!/usr/bin/env bash
# Every test in a ThreadSanitizer build (build-thread). Not part of CI: it
# would add about 13 minutes on 2 idle cores (a build from scratch of 12.4
# CPU-minutes, 5-7 minutes of tests; docs/reliability.md).
#   scripts/tsan.sh [ctest arguments]     e.g. scripts/tsan.sh -R 'agent|integration'
# Every process a test starts writes its ThreadSanitizer reports to
# build-thread/tsan-reports/<test>.<pid> (cmake/ProfTest.cmake), with the
# suppressions of scripts/tsan_suppressions.txt: a report anywhere fails the
# run, even in a process whose exit code no test looks at. Prints the build's
# and the tests' wall times.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
start=$SECONDS
build_dir=$(PROF_SANITIZE=thread scripts/build.sh | tail -n 1)
echo "== tsan: build took $((SECONDS - start)) s" >&2

reports="$PWD/$build_dir/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
start=$SECONDS
status=0
if ! (cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" "$@"); then
  # Timing checks (advise's findings, simcuda's queue) can fail on a loaded
  # machine with the slowdown of this build: the failures run once more, one
  # at a time. Reports are not retried: one from either run fails the script.
  echo "== tsan: the failed tests once more, one at a time" >&2
  (cd "$build_dir" && ctest --output-on-failure --rerun-failed) || status=$?
fi
echo "== tsan: tests took $((SECONDS - start)) s" >&2

shopt -s nullglob
logs=("$reports"/*)
if ((${#logs[@]})); then
  for log in "${logs[@]}"; do
    echo "== tsan: ${log#"$PWD"/}" >&2
    cat "$log" >&2
  done
  echo "== tsan: ${#logs[@]} processes reported (in ${reports#"$PWD"/})" >&2
  status=1
fi
exit "$status"
