#!/bin/sh
# Runs profanalyze stacks, flamegraph and trace on the fixed captures and
# checks what they wrote with check_outputs.py (python3's json, gzip and
# xml.etree: the formats' own parsers).
#   check_outputs.sh PYTHON MAKE_VIEWS_CAPTURE PROFANALYZE SOURCE_DIR
set -eu
python=$1 maker=$2 profanalyze=$3 source=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$maker" rank0.pb rank1.pb
"$profanalyze" stacks rank0.pb > cuda.folded
"$profanalyze" stacks rank0.pb --metric self_cpu_time_total > cpu.folded
"$profanalyze" stacks rank0.pb rank1.pb --per-thread > both.folded
"$profanalyze" flamegraph rank0.pb -o cuda.svg > /dev/null
"$profanalyze" stacks rank0.pb rank1.pb --per-thread --metric self_cpu_time_total > both_cpu.folded
"$profanalyze" flamegraph rank0.pb rank1.pb --per-thread --metric self_cpu_time_total -o both.svg > /dev/null
"$profanalyze" trace rank0.pb -o one.json > /dev/null
"$profanalyze" trace rank0.pb rank1.pb -o two.json.gz > /dev/null
mkdir windows
"$profanalyze" trace rank0.pb -o windows/trace.json --active 1 > /dev/null
"$python" "$source/check_outputs.py" "$work"
# The SVG's script, run against a stand-in DOM, where node is installed:
# cudaLaunchKernel frames hold 7 of the 11 us.
if command -v node > /dev/null 2>&1; then
  node "$source/check_flamegraph_script.js" cuda.svg forward 63.6
fi
