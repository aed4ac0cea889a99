#!/usr/bin/env bash
# Benchmarks (issue #7): agent overhead per CUDA API call (vs. the
# uninstrumented app and uftrace), recording throughput without drops, bytes
# per record in the file, analyzer speed and memory on a 10M-event capture.
# Installs what is missing, builds a Release tree (build-release), runs
# bench/bench.py: progress on stderr, one table on stdout.
#
#   scripts/bench.sh            # the full run (a few minutes on 2 cores)
#   scripts/bench.sh --quick    # smaller runs, to try changes out
#   scripts/bench.sh --only overhead,throughput,size,analyzer
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh

# uftrace is the peer the overhead is compared with. Like bootstrap.sh for
# its packages: install it when missing; without it its rows are left out.
if ! command -v uftrace >/dev/null 2>&1; then
  echo "bench: installing uftrace" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  if ! { DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
           uftrace >/dev/null 2>&1 ||
         { "${sudo_cmd[@]}" apt-get update -qq >/dev/null 2>&1 &&
           DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
             uftrace >/dev/null 2>&1; }; }; then
    echo "bench: could not install uftrace (apt-get failed); its rows are left out" >&2
  fi
fi

# Only the targets the benchmark runs: the agent, the analyzer, simcuda and
# its apps, the bench tools (the unit tests would double the build time).
export BUILD_TYPE="${BUILD_TYPE:-Release}" BUILD_DIR="${BUILD_DIR:-build-release}"
echo "bench: building ($BUILD_TYPE) into $BUILD_DIR" >&2
scripts/build.sh prof profanalyze simcuda_all bench_all >&2
exec python3 bench/bench.py "$BUILD_DIR" "$@"
