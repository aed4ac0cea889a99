#!/usr/bin/env bash
# The README's main job: bootstrap, build, run a sample program under the
# agent, print what profanalyze makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
build_dir=$(realpath "$(scripts/build.sh | tail -n 1)")
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
rm -f "$out_dir"/*.pb

app="$build_dir/test/integration/apps/nvtx_threads"
echo "== running $app under libprof.so" >&2
set +e
(cd "$out_dir" && LD_PRELOAD="$build_dir/lib/libprof.so" PROF_OUTPUT=demo.pb "$app")
status=$?
set -e
echo "== the app exited with $status (it exits 3 on purpose)" >&2

echo "== profanalyze info $out_dir/demo.pb" >&2
"$build_dir/analyzer/profanalyze" info "$out_dir/demo.pb"
echo "== profanalyze report $out_dir/demo.pb" >&2
"$build_dir/analyzer/profanalyze" report "$out_dir/demo.pb"
