#!/usr/bin/env bash
# The README's main job: install what is missing, build what the demo needs
# (profanalyze, libprof.so, the sample program and, without a GPU, simcuda;
# not the tests), record the sample with `profanalyze record`, print its
# report.
#
# The sample is test/apps/nvtx_training (a training-like loop: NVTX steps, a
# data-loading copy, forward/backward/optimizer kernels, a sync per step).
# Without a GPU (CI, this machine) it runs on simcuda, the CPU stand-in for
# CUDA in test/simcuda; with a working GPU driver it runs on the real one.
#   BUILD_DIR=dir scripts/demo.sh    build there instead of build/
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

say() { echo "== $*" >&2; }

say "checking the packages the build needs (scripts/bootstrap.sh)"
scripts/bootstrap.sh

build_dir="${BUILD_DIR:-build}"
# Configured once; after that ninja runs cmake again itself when a
# CMakeLists.txt changes.
if [[ ! -f "$build_dir/build.ninja" ]]; then
  say "configuring $build_dir (cmake)"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
    -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" >/dev/null
fi
build_dir=$(realpath "$build_dir")

targets=(profanalyze prof app_nvtx_training)
on_gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  on_gpu=1
else
  targets+=(simcuda_driver simcuda_runtime simcuda_cupti)
fi

# About 12 s of one core per compile step, measured on a 2-core VM from
# an empty compiler cache; a cache hit takes under a second.
steps=$(ninja -C "$build_dir" -n "${targets[@]}" | grep -c '^\[' || true)
if ((steps > 0)); then
  cores=$(nproc)
  say "building ${targets[*]}: $steps steps, up to $(((steps * 12 / cores + 59) / 60)) min on $cores cores (less with a warm ccache)"
  # ninja's own [done/total] lines are the progress.
  ninja -C "$build_dir" -j"$cores" "${targets[@]}" >&2
else
  say "built already: ${targets[*]}"
fi

analyze="$build_dir/analyzer/profanalyze"
app="$build_dir/simcuda/apps/nvtx_training"
out="$build_dir/demo/demo.pb"
mkdir -p "$(dirname "$out")"
rm -f "$build_dir"/demo/*.pb
env_for_app=()
if [[ -n "$on_gpu" ]]; then
  say "a GPU driver answers: recording on the real GPU"
else
  # simcuda's libraries stand in for libcuda and libcudart; each kernel takes
  # the simulated time SIMCUDA_KERNEL_NS gives it (name=nanoseconds).
  say "no GPU driver: recording on simcuda (simulated GPU time)"
  env_for_app=(LD_LIBRARY_PATH="$build_dir/simcuda/lib"
               SIMCUDA_KERNEL_NS="forward=150000,backward=250000,optimizer=50000")
fi

say "profanalyze record -o $out -- $app"
env "${env_for_app[@]}" "$analyze" record -o "$out" -- "$app"

say "profanalyze report --sort-by cuda_time_total --row-limit 12 $out"
"$analyze" report --sort-by cuda_time_total --row-limit 12 "$out"
say "profanalyze report --step 'nvtx:ProfilerStep#\d+' --wait 1 --warmup 1 --active 2 --view kernels $out"
"$analyze" report --step 'nvtx:ProfilerStep#\d+' --wait 1 --warmup 1 --active 2 --view kernels "$out"
say "done in $((SECONDS - started)) s. Install profanalyze and libprof.so: cmake --install $build_dir --prefix ~/.local (README, \"Install\")"
