#!/usr/bin/env bash
# The README's test command: bootstrap, configure, build, run every test.
#   PROF_SANITIZE=address|undefined|thread scripts/test.sh   sanitizer build
#   scripts/test.sh -R simcuda                               extra ctest arguments
# It says what it does as it goes: ninja's [done/total] lines while it
# builds, then one line per test as it ends ("12/160 Test #40: ... Passed").
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

echo "== checking the packages the build needs (scripts/bootstrap.sh)" >&2
scripts/bootstrap.sh
# A full build from an empty compiler cache is 261 steps, about 10 s of a
# core each (some 22 min on 2 cores); the tests then take some 5 minutes
# on 2 cores (docs/reliability.md has CI's measured times).
echo "== building everything, tests included (about 25 min on 2 cores from an empty ccache)" >&2
build_dir=$(scripts/build.sh | tail -n 1)
echo "== built in $((SECONDS - started)) s; running the tests (ctest -j$(nproc))" >&2
cd "$build_dir"
ctest --output-on-failure -j"$(nproc)" "$@"
echo "== all tests passed in $((SECONDS - started)) s" >&2
