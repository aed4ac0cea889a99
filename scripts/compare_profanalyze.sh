#!/usr/bin/env bash
# Byte-identity check of two profanalyze binaries: every subcommand, in the
# views, formats, windows and sort orders below, on each capture in
# CAPTURE_DIR alone, on all its small ones at once and on a repeated set;
# stdout, stderr (with the binary's own path replaced) and exit code must
# match. For a change that must not alter any output (performance work):
#   scripts/compare_profanalyze.sh OLD_BINARY NEW_BINARY CAPTURE_DIR
# Captures: the simcuda apps under the agent, the unit tests' make_*_capture
# programs and a bench_generate_capture file make a good set. Files over
# 2 MB join only the one-file runs. Prints each differing command line,
# keeps both outputs under WORK_DIR (default: a temporary folder), and
# exits 1 when any differ.
set -uo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 OLD_BINARY NEW_BINARY CAPTURE_DIR [WORK_DIR]" >&2
  exit 2
fi
old=$1 new=$2 captures=$3
work=${4:-$(mktemp -d)}
mkdir -p "$work"

commands=(
  "info"
  "report" "report --format json" "report --format csv --group-by-input-shape"
  "report --group-by-input-shape" "report --group-by-stack-n 2" "report --group-by-stack-n 1 --format json"
  "report --sort-by self_cuda_time_total --row-limit 5" "report --sort-by cpu_time_total --time-unit us"
  "report --sort-by count --top-level-only" "report --sort-by self_cpu_memory_usage --format csv"
  "report --driver-calls" "report --driver-calls --top-level-only --format json"
  "report --view kernels" "report --view api --format csv" "report --view memcpy" "report --view nvtx --format json"
  "report --view modules" "report --view modules --format json" "report --view memory" "report --view memory --format csv"
  "report --step auto" "report --step auto --merge-windows --format json"
  "report --step nvtx:^ProfilerStep --wait 1 --warmup 1 --active 2"
  "report --step nvtx:^ProfilerStep --skip-first 1 --active 1 --repeat 2 --format csv"
  "report --step nvtx:^ProfilerStep --active 2 --view kernels"
  "stacks --no-symbols" "stacks --no-symbols --per-thread --metric self_cuda_time_total" "stacks"
  "stacks --no-symbols --step auto --active 1 --window 1"
  "trace -o -" "trace -o - --driver-calls" "trace -o - --max-events 50" "trace -o - --step auto"
  "trace -o - --step nvtx:^ProfilerStep --active 1 --wait 1"
  "advise" "advise --format json --no-symbols" "advise --no-symbols --min-share 0 --step auto"
  "advise --format json --no-symbols --min-share 0 --step nvtx:^ProfilerStep --active 1 --repeat 2"
  "html -o - --no-symbols" "html -o - --no-symbols --step auto --active 1"
)

targets=()
small=()
for f in "$captures"/*.pb; do
  targets+=("$f")
  [[ $(stat -c %s "$f") -le 2000000 ]] && small+=("$f")
done
[[ ${#small[@]} -gt 1 ]] && targets+=("${small[*]}")
[[ ${#small[@]} -gt 0 ]] && targets+=("${small[0]} ${small[-1]} ${small[0]}")

lines=0 differ=0
for target in "${targets[@]}"; do
  for command in "${commands[@]}"; do
    sub=${command%% *}
    rest=${command#"$sub"}
    # shellcheck disable=SC2086 # word splitting of the file list and options is meant
    "$old" $sub $target $rest >"$work/old.out" 2>"$work/old.err"
    old_rc=$?
    # shellcheck disable=SC2086
    "$new" $sub $target $rest >"$work/new.out" 2>"$work/new.err"
    new_rc=$?
    sed -i "s|$old|PROFANALYZE|g" "$work/old.err"
    sed -i "s|$new|PROFANALYZE|g" "$work/new.err"
    lines=$((lines + 1))
    if [[ $old_rc != "$new_rc" ]] || ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err"; then
      differ=$((differ + 1))
      echo "DIFFERS: $sub $target $rest (exit $old_rc / $new_rc)"
      cp "$work/old.out" "$work/old.$differ.out"
      cp "$work/new.out" "$work/new.$differ.out"
      cp "$work/old.err" "$work/old.$differ.err"
      cp "$work/new.err" "$work/new.$differ.err"
    fi
  done
done
echo "$lines command lines, $differ differ (outputs in $work)"
[[ $differ == 0 ]]
