#!/usr/bin/env bash
# Configures and builds into BUILD_DIR (default: build, or build-<sanitizer>
# when PROF_SANITIZE is set; address,undefined -> build-address-undefined).
# Used by test.sh, demo.sh and bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize="${PROF_SANITIZE:-}"
sanitize_name="${sanitize//,/-}"  # address,undefined -> build-address-undefined
build_dir="${BUILD_DIR:-build${sanitize:+-$sanitize_name}}"
build_type="${BUILD_TYPE:-RelWithDebInfo}"

cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="$build_type" \
  -DPROF_SANITIZE="$sanitize" \
  -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" >/dev/null
cmake --build "$build_dir" -- -j"$(nproc)" "$@"
echo "$build_dir"
