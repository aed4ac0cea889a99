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

# ccache (bootstrap.sh installs it) keeps rebuilds of a fresh clone, a second
# checkout or a sanitizer build short. Paths are hashed relative to the
# checkout, so any two checkouts share the cache. PROF_CCACHE=0 turns it off.
if [[ ${PROF_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi

cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="$build_type" \
  -DPROF_SANITIZE="$sanitize" \
  -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" >/dev/null
# Progress ([done/total] lines) on stderr: stdout is the build folder alone.
cmake --build "$build_dir" -- -j"$(nproc)" "$@" >&2
echo "$build_dir"
