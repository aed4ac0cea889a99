#!/usr/bin/env bash
# Runs on a machine with a real GPU (the device tool's run; see README,
# "Checking on a real GPU"). Expects the agent and the test programs built on
# the development machine, carried in the working tree:
#   build/lib/libprof.so with build/lib/libprof-regex.so (the step rules' regex),
#   build/simcuda/apps/*, build/test/integration/apps/*,
#   build/bench/libbench_null_cupti_tool.so (optional)
# and writes into $OUT: one capture file per program, each program's exit code
# and output with and without the agent (gpu-check.tar.gz), and PyTorch's
# check (test/gpu/torch_check.sh): torch.profiler and libprof on the same
# unmodified training loop, compared automatically (torch_side_by_side.md, the
# table for README's "Checked on a real GPU"), and the torch side's costs
# (torch_costs.md). Exits non-zero when the PyTorch comparison finds a
# mismatch or cannot run (its lines say which).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?set OUT}
work=$(mktemp -d)
agent="$PWD/build/lib/libprof.so"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$work/gpu.txt" 2>&1
# GPU_CHECK_PARTS: all (default), cuda (the CUDA programs and costs alone) or
# torch (test/gpu/torch_check.sh alone): when the whole outlasts one device
# call (10 minutes), one call each.
parts=${GPU_CHECK_PARTS:-all}
[[ $parts == all || $parts == cuda || $parts == torch ]] || { echo "GPU_CHECK_PARTS: all, cuda or torch" >&2; exit 2; }

if [[ $parts != torch ]]; then  # the CUDA part, to the PyTorch part below (not indented: unchanged lines)
run_both() {  # name, command...
  local name=$1; shift
  (cd "$work" && "$@" > "$name.plain.out" 2> "$name.plain.err"; echo $? > "$name.plain.rc")
  (cd "$work" && LD_PRELOAD="$agent" PROF_OUTPUT="$work/$name.pb" "$@" > "$name.traced.out" 2> "$name.traced.err"
   echo $? > "$name.traced.rc")
}

for app in tiny_kernels two_streams copies malloc_churn multithread_launch graph_replay nvtx_training \
           launch_site driver_api launch_queue async_copy host_callbacks peer_copies managed_memory \
           symbol_copies graph_build driver_extras kernel_attributes cooperative_launch \
           peer_default_copies memory_pools graph_api texture_objects module_loading vmm_mapping graph_nodes \
           graph_branches graph_setters; do
  run_both "$app" "$PWD/build/simcuda/apps/$app"
done
for app in cuda_exceptions cuda_backtrace own_cupti_subscriber profiler_range; do
  run_both "$app" "$PWD/build/test/integration/apps/$app"
done
# Issue 27: a 40 MB copy still running when main returns (simpleAWBarrier's
# ending): its record in the file, or counted in ProcessEnd.gpu_records_missing.
for what in copy kernel; do
  run_both "unsynchronized_exit_$what" "$PWD/build/test/integration/apps/unsynchronized_exit" "$what"
done
# Cost per launch on the real driver: the launch-bound loop at two sizes, so
# that start-up (CUDA's and the agent's) cancels out of the slope.
tiny="$PWD/build/simcuda/apps/tiny_kernels"
null_tool="$PWD/build/bench/libbench_null_cupti_tool.so"  # CUPTI's own cost: subscribes, records nothing
# cupti_none: PROF_BACKEND=cupti; hooks*: PROF_BACKEND=hooks (API calls from the agent's own interception; GPU
# work timed with events, or not at all); null_activity: CUPTI's activity API
# alone, with no API callbacks; outside_window: PROF_STEP and PROF_SCHEDULE
# with no window ever open, what step detection costs between windows.
# GPU_CHECK_ROUNDS rounds (default 3), every configuration once per round, so
# that the machine's drift spreads over all of them alike.
for round in $(seq "${GPU_CHECK_ROUNDS:-3}"); do
for mode in plain null null_activity none cupti_none native hooks_events hooks_untimed outside_window outside_window_detached; do
  [[ $mode == null* && ! -e $null_tool ]] && continue
  for launches in 100000 300000; do
    start=$(date +%s%N)
    if [[ $mode == plain ]]; then
      "$tiny" $launches > /dev/null
    elif [[ $mode == null* ]]; then
      LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64" \
        NULL_TOOL_ACTIVITY_ONLY=$([[ $mode == null_activity ]] && echo 1 || echo 0) \
        CUDA_INJECTION64_PATH="$null_tool" "$tiny" $launches > /dev/null
    elif [[ $mode == cupti_none ]]; then  # CUPTI alone: the hooks pass every call straight through
      LD_PRELOAD="$agent" PROF_BACKEND=cupti PROF_STACKS=none PROF_LOG=quiet \
        PROF_OUTPUT="$work/launch_bound_$mode.pb" "$tiny" $launches > /dev/null
    elif [[ $mode == outside_window* ]]; then  # PROF_STEP finds no step, so no window ever opens
      PROF_CUPTI_DETACH=$([[ $mode == *_detached ]] && echo 1 || echo 0) \
      LD_PRELOAD="$agent" PROF_STEP='nvtx:^never$' PROF_SCHEDULE=wait=1000000000,active=1 PROF_STACKS=native \
        PROF_LOG=quiet PROF_OUTPUT="$work/launch_bound_$mode.pb" "$tiny" $launches > /dev/null
    elif [[ $mode == hooks_* ]]; then
      LD_PRELOAD="$agent" PROF_BACKEND=hooks PROF_STACKS=none PROF_LOG=quiet \
        PROF_GPU_TIMING=$([[ $mode == hooks_events ]] && echo events || echo none) \
        PROF_OUTPUT="$work/launch_bound_$mode.pb" "$tiny" $launches > /dev/null
    else
      LD_PRELOAD="$agent" PROF_STACKS=$mode PROF_LOG=quiet PROF_OUTPUT="$work/launch_bound_$mode.pb" \
        "$tiny" $launches > /dev/null
    fi
    echo "$mode $launches $(( $(date +%s%N) - start ))" >> "$work/launch_bound_ns.txt"
    rm -f "$work"/launch_bound_*.pb  # tens of MB each, and only the times matter
  done
done
done
# The real stream queue depth (simcuda models 1024: SIMCUDA_QUEUE_DEPTH).
[[ -x build/simcuda/apps/queue_depth ]] && build/simcuda/apps/queue_depth > "$work/queue_depth.out" 2>&1
# Capture windows on the real driver: a schedule over 40 steps gives two
# window files whose every launch has its GPU record (info: gpu records missing).
mkdir -p "$work/windows"
(cd "$work/windows" && LD_PRELOAD="$agent" PROF_STEP='nvtx:^ProfilerStep#\d+$' \
   PROF_SCHEDULE=wait=5,warmup=1,active=3,repeat=2 PROF_OUTPUT="$work/windows/run.pb" \
   "$OLDPWD/build/simcuda/apps/nvtx_training" 40 > windows.out 2> windows.err)
# The same with CUPTI detached between windows (PROF_CUPTI_DETACH=1, off by
# default until this passes): the log shows each detach and attach, and each
# file must still have every launch's GPU record and a device.
mkdir -p "$work/windows_detached"
(cd "$work/windows_detached" && LD_PRELOAD="$agent" PROF_STEP='nvtx:^ProfilerStep#\d+$' PROF_CUPTI_DETACH=1 \
   PROF_LOG=debug PROF_SCHEDULE=wait=5,warmup=1,active=3,repeat=2 PROF_OUTPUT="$work/windows_detached/run.pb" \
   "$OLDPWD/build/simcuda/apps/nvtx_training" 40 > windows.out 2> windows.err)
# The CUDA step rules: the debug log's "CUPTI calls back for:" line names the
# callbacks the real CUPTI left on between windows (cuptiGetCallbackName's
# names; "every runtime and driver call" if none matched), and each window
# file must hold its 3 steps' kernels (9) with no GPU record missing.
for rule in kernel:forward_kernel api:cudaMemcpy api:cudaDeviceSynchronize; do
  dir="$work/windows_${rule//[:]/_}"
  mkdir -p "$dir"
  (cd "$dir" && LD_PRELOAD="$agent" PROF_STEP="$rule" PROF_LOG=debug PROF_SCHEDULE=wait=5,warmup=1,active=3,repeat=2 \
     PROF_OUTPUT="$dir/run.pb" "$OLDPWD/build/simcuda/apps/nvtx_training" 40 > windows.out 2> windows.err)
done
[[ -x build/analyzer/profanalyze ]] && for pb in "$work"/windows*/*.pb; do
  build/analyzer/profanalyze info "$pb" > "$pb.info.txt" 2>&1
  build/analyzer/profanalyze dump "$pb" 2>/dev/null | grep -c '"type":"device"' > "$pb.devices.txt"
done
# Event-timed kernels against CUPTI's and against their own global timer
# (scripts/event_timing_table.py prints the table from the two captures).
if [[ -x build/simcuda/apps/event_timing ]]; then
  build/simcuda/apps/event_timing > "$work/event_timing.plain.txt"
  for backend in cupti hooks; do
    LD_PRELOAD="$agent" PROF_BACKEND=$backend PROF_STACKS=none PROF_LOG=quiet \
      PROF_OUTPUT="$work/event_timing.$backend.pb" build/simcuda/apps/event_timing > "$work/event_timing.$backend.txt"
  done
  [[ -x build/analyzer/profanalyze ]] && python3 scripts/event_timing_table.py build/analyzer/profanalyze \
    "$work/event_timing.cupti" "$work/event_timing.hooks" > "$work/event_timing_table.txt" 2>&1
fi
fi  # GPU_CHECK_PARTS != torch
# PyTorch (issues 26 and 12): torch.profiler against libprof on an unmodified
# training loop, compared automatically; Python stacks; the torch side's costs.
torch_status=0
if [[ $parts != cuda ]]; then
  mkdir -p "$work/torch"
  test/gpu/torch_check.sh "$work/torch" "$OUT"
  torch_status=$?
fi
tar -C "$work" -czf "$OUT/gpu-check.tar.gz" .
ls -la "$work" | tail -n +2 | wc -l
if (( torch_status != 0 )); then
  echo "gpu-check: the PyTorch check failed (status $torch_status): see the torch_check lines above," \
       "torch/torch_side_by_side.md and torch/torch_compare.err in gpu-check.tar.gz" >&2
  exit "$torch_status"
fi
