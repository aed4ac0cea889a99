#!/usr/bin/env bash
# The README's main job: bootstrap, build, run a sample CUDA program under the
# agent, print what profanalyze makes of it.
#
# The sample is test/apps/nvtx_training (a training-like loop: NVTX steps, a
# data-loading copy, forward/backward/optimizer kernels, a sync per step).
# Without a GPU (CI, this machine) it runs on simcuda, the CPU stand-in for
# CUDA in test/simcuda; with a working GPU driver it runs on the real one.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
build_dir=$(realpath "$(scripts/build.sh | tail -n 1)")
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
rm -f "$out_dir"/*.pb

app="$build_dir/simcuda/apps/nvtx_training"
env_for_app=(LD_PRELOAD="$build_dir/lib/libprof.so" PROF_OUTPUT="$out_dir/demo.pb")
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  echo "== a GPU driver answers: running on the real GPU" >&2
else
  echo "== no GPU driver: running on simcuda (simulated GPU time)" >&2
  env_for_app+=(LD_LIBRARY_PATH="$build_dir/simcuda/lib"
                SIMCUDA_KERNEL_NS="forward=150000,backward=250000,optimizer=50000")
fi

echo "== $app under libprof.so" >&2
env "${env_for_app[@]}" "$app"

analyze="$build_dir/analyzer/profanalyze"
echo "== profanalyze report --sort-by cuda_time_total --row-limit 12 $out_dir/demo.pb" >&2
"$analyze" report --sort-by cuda_time_total --row-limit 12 "$out_dir/demo.pb"
echo "== profanalyze report --step 'nvtx:ProfilerStep#\d+' --wait 1 --warmup 1 --active 2 --view kernels" >&2
"$analyze" report --step 'nvtx:ProfilerStep#\d+' --wait 1 --warmup 1 --active 2 --view kernels "$out_dir/demo.pb"
echo "== more: profanalyze info|stacks|flamegraph|trace $out_dir/demo.pb" >&2
