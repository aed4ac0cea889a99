#!/usr/bin/env bash
# Makes the README's screenshot of `profanalyze html`'s overview: records the
# simcuda training app (test/apps/nvtx_training) under libprof.so, writes its
# page and has headless Chromium take a PNG of it.
#   scripts/html_screenshot.sh [OUT.png (default docs/html_overview.png)] [STEPS (default 8)]
# Needs a build (scripts/build.sh; BUILD_DIR as there) and Debian's chromium
# (scripts/bootstrap.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-docs/html_overview.png}")"
steps="${2:-8}"
build="$(realpath "${BUILD_DIR:-build}")"
chromium="$(command -v chromium || command -v chromium-browser || true)"
[[ -n "$chromium" ]] || { echo "html_screenshot: no chromium (scripts/bootstrap.sh installs it)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
LD_LIBRARY_PATH="$build/simcuda/lib" LD_PRELOAD="$build/lib/libprof.so" PROF_OUTPUT="$tmp/run.pb" \
  SIMCUDA_KERNEL_NS="forward_kernel=150000,backward_kernel=250000,optimizer_kernel=50000" \
  "$build/simcuda/apps/nvtx_training" "$steps" >/dev/null
(cd "$tmp" && "$build/analyzer/profanalyze" html run.pb -o overview.html)
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1000 \
  --user-data-dir="$tmp/profile" --screenshot="$out" "file://$tmp/overview.html" 2>/dev/null
echo "$out"
