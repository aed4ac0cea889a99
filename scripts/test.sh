#!/usr/bin/env bash
# The README's test command: bootstrap, configure, build, run every test.
#   PROF_SANITIZE=address|undefined|thread scripts/test.sh   sanitizer build
#   scripts/test.sh -R simcuda                               extra ctest arguments
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
build_dir=$(scripts/build.sh | tail -n 1)
cd "$build_dir"
ctest --output-on-failure -j"$(nproc)" "$@"
