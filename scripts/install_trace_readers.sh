#!/usr/bin/env bash
# Installs the trace readers test/integration/run_trace_reader_tests.py runs
# on our traces that are npm packages, pinned, into one folder the tests
# find (PROF_TRACE_READERS_DIR, default ~/.cache/libprof/trace-readers):
#   speedscope          its Chrome trace importer, run under node
#   webcomponents.js    the Custom Elements / HTML Imports v0 polyfill the
#                       Catapult viewer (trace_viewer_full.html in
#                       ../shared/third_party/tb_plugin) needs in today's
#                       Chromium, as TensorBoard loads it
# Safe to run any number of times; needs node (scripts/bootstrap.sh) and npm
# (installed from Debian here when missing).
set -euo pipefail

DIR="${PROF_TRACE_READERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/libprof/trace-readers}"
SPEEDSCOPE=speedscope@1.25.0
WEBCOMPONENTS=webcomponents.js@0.7.24

if [[ -f "$DIR/node_modules/speedscope/package.json" && -f "$DIR/node_modules/webcomponents.js/webcomponents.min.js" ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
mkdir -p "$DIR"
echo "install_trace_readers: installing $SPEEDSCOPE $WEBCOMPONENTS into $DIR" >&2
npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error "$SPEEDSCOPE" "$WEBCOMPONENTS" >/dev/null
