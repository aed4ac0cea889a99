#!/usr/bin/env bash
# PyTorch on a real GPU (issue 26), run by scripts/gpu-check.sh (or alone:
# test/gpu/torch_check.sh WORK_DIR [OUT_DIR]), from the repository root:
#  0. that `import torch` leaves the program as it was under the agent (CUDA
#     not initialized by it);
#  1. test/gpu/torch_side_by_side.py's training loop once under
#     torch.profiler and once, unmodified, under libprof; torch_compare.py
#     compares them (operators and counts, CUDA total per operator, steps,
#     input shapes, GPU work, peak memory) and writes the side-by-side table:
#     WORK/torch_side_by_side.md, copied to OUT_DIR;
#  2. the same loop with Python stacks beside torch's export_stacks (issue 12);
#  3. bench/torch_gpu_cost.py: emit_nvtx's cost per op (against nsys's where
#     nsys is found), _snapshot()'s cost against the entries held, and per
#     step: WORK/torch_costs.md, copied to OUT_DIR.
# Every step has its own time limit, so that the whole stays inside one
# device call (10 minutes) beside the rest of gpu-check.sh; its outputs and
# logs stay in WORK whatever fails. Exit status: 1 when import torch differs
# under the agent, else torch_compare.py's (0 equal, 1 a mismatch, 2 an input
# missing: a run that failed), or 3 when the comparison passed but a run or
# the cost bench failed.
set -uo pipefail
work=${1:?usage: test/gpu/torch_check.sh WORK_DIR [OUT_DIR]}
out=${2:-}
mkdir -p "$work"
root=$PWD
agent="$root/build/lib/libprof.so"
analyzer="$root/build/analyzer/profanalyze"
python=${TORCH_CHECK_PYTHON:-python3}
program="$root/test/gpu/torch_side_by_side.py"
steps=30 wait=1 warmup=1
active=$((steps - wait - warmup))
window=(--wait "$wait" --warmup "$warmup" --active "$active" --repeat 1)
# TORCH_CHECK_DEVICE=cpu: a dry run of this script's flow on a CPU torch (no
# operators there: no emit_nvtx on a CPU torch, so the comparison must fail).
loop=(--steps "$steps" --wait "$wait" --warmup "$warmup" --device "${TORCH_CHECK_DEVICE:-cuda}")
failed=()
say() { echo "torch_check: $*"; }

# 0. What `import torch` leaves the program, with and without the agent:
# whether CUDA is initialized yet (torch's _record_memory_history, which the
# bootstrap's memory part defers to CUDA's own start through
# torch.cuda._lazy_call, initializes it: memory_snapshot.cpp's
# lazyInitDevice; a program that sets CUDA_VISIBLE_DEVICES after its import,
# or forks children that use CUDA, would then behave differently).
probe='import torch; print("cuda initialized at import:", torch.cuda.is_initialized())'
untouched=0
timeout 120 "$python" -c "$probe" > "$work/import_plain.out" 2>&1
(cd "$work" && LD_PRELOAD="$agent" PROF_OUTPUT="$work/import_libprof.pb" timeout 120 "$python" -c "$probe" \
   > import_libprof.out 2> import_libprof.err)
if ! cmp -s "$work/import_plain.out" "$work/import_libprof.out"; then
  untouched=1
  say "MISMATCH: import torch under libprof differs: $(tr '\n' ' ' < "$work/import_plain.out")without," \
      "$(tr '\n' ' ' < "$work/import_libprof.out")with the agent"
fi

# 1. torch.profiler, then libprof with no code change (its own folder: each
# run writes program_<mode>.json).
timeout 300 "$python" "$program" --out "$work" --profiler torch "${loop[@]}" > "$work/torch.out" 2>&1 \
  || failed+=("torch.profiler run (exit $?, torch.out)")
mkdir -p "$work/torch_libprof"
(cd "$work/torch_libprof" && LD_PRELOAD="$agent" PROF_OUTPUT="$work/torch_libprof.pb" \
   timeout 300 "$python" "$program" --out "$work/torch_libprof" "${loop[@]}" > torch_libprof.out 2> torch_libprof.err) \
  || failed+=("libprof run (exit $?, torch_libprof/torch_libprof.err)")
pb="$work/torch_libprof.pb"
if [[ -x $analyzer && -f $pb ]]; then
  a() { timeout 120 "$analyzer" "$@"; }
  a report --format json --row-limit -1 "${window[@]}" "$pb" > "$work/libprof_report.json" 2>> "$work/analyzer.err"
  a report --format json --row-limit -1 "$pb" > "$work/libprof_whole.json" 2>> "$work/analyzer.err"
  a report --format json --row-limit -1 --group-by-input-shape "${window[@]}" "$pb" \
    > "$work/libprof_shapes.json" 2>> "$work/analyzer.err"
  a report --view memory --format json "$pb" > "$work/libprof_memory.json" 2>> "$work/analyzer.err"
  a report --view memory --format json "${window[@]}" "$pb" > "$work/libprof_memory_window.json" 2>> "$work/analyzer.err"
  # For a person: the tables as each tool prints them (torch's: torch_table.txt).
  a report --row-limit -1 --sort-by cuda_time_total "${window[@]}" "$pb" > "$work/libprof_table.txt" 2>&1
  a report --view modules "${window[@]}" "$pb" > "$work/libprof_modules.txt" 2>&1
  a report --view memory "$pb" > "$work/libprof_memory.txt" 2>&1
  a info "$pb" > "$work/libprof_info.txt" 2>&1
  a trace "${window[@]}" "$pb" -o "$work/libprof_trace.json" > /dev/null 2>&1
else
  failed+=("no capture or no analyzer: $pb")
fi
"$python" "$root/test/gpu/torch_compare.py" --markdown "$work/torch_side_by_side.md" \
  --torch "$work/torch_ops.json" --torch-program "$work/program_torch.json" \
  --libprof-report "$work/libprof_report.json" --libprof-whole "$work/libprof_whole.json" \
  --libprof-shapes "$work/libprof_shapes.json" --libprof-memory "$work/libprof_memory.json" \
  --libprof-memory-window "$work/libprof_memory_window.json" \
  --libprof-program "$work/torch_libprof/program_none.json" 2> "$work/torch_compare.err"
compared=$?
cat "$work/torch_compare.err"
# Into OUT at once: what a device call stopped at its time limit still returns.
[[ -n $out && -f $work/torch_side_by_side.md ]] && cp "$work/torch_side_by_side.md" "$out/"

# 2. Python stacks (issue 12): torch's export_stacks beside libprof's
# PROF_STACKS=python of the same loop.
timeout 300 "$python" "$program" --out "$work" --profiler torch-stacks "${loop[@]}" > "$work/torch_stacks.out" 2>&1 \
  || failed+=("torch.profiler stacks run (exit $?, torch_stacks.out)")
mkdir -p "$work/torch_libprof_python"
(cd "$work/torch_libprof_python" && LD_PRELOAD="$agent" PROF_STACKS=python PROF_OUTPUT="$work/torch_libprof_python.pb" \
   timeout 300 "$python" "$program" --out "$work/torch_libprof_python" "${loop[@]}" > /dev/null 2> torch_libprof_python.err) \
  || failed+=("libprof Python stacks run (exit $?)")
for pb in torch_libprof torch_libprof_python; do
  [[ -x $analyzer && -f "$work/$pb.pb" ]] && timeout 120 "$analyzer" stacks --metric self_cuda_time_total \
    "$work/$pb.pb" > "$work/${pb}_stacks.txt" 2>&1
done

# 3. Costs.
# The bench writes its table after each part, straight into OUT when given.
timeout 420 "$python" "$root/bench/torch_gpu_cost.py" "$root/build" --python "$python" \
  --json "$work/torch_costs.json" --markdown "${out:-$work}/torch_costs.md" > "$work/torch_costs.out" 2>&1 \
  || failed+=("bench/torch_gpu_cost.py (exit $?, torch_costs.out)")
[[ -n $out && -f $out/torch_costs.md ]] && cp "$out/torch_costs.md" "$work/"
for f in "${failed[@]}"; do say "FAILED: $f"; done
(( untouched == 0 )) || { say "the agent changed what import torch leaves the program (import_*.out)"; exit 1; }
case $compared in
  0) say "torch.profiler and libprof agree (torch_side_by_side.md)" ;;
  1) say "MISMATCH between torch.profiler and libprof: see the lines above and torch_side_by_side.md"; exit 1 ;;
  *) say "no comparison: an input is missing (see the FAILED lines and torch_compare.err)"; exit 2 ;;
esac
(( ${#failed[@]} == 0 )) || exit 3
exit 0
