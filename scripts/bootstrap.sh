#!/usr/bin/env bash
# Installs what building and testing need, only what is missing, and checks
# the CUDA toolkit (which is not a Debian package: CUDA_HOME, default
# /usr/local/cuda). Safe to run any number of times.
set -euo pipefail

CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"

# clang and its runtimes: the analyzer's libFuzzer targets (scripts/fuzz.sh).
PACKAGES=(cmake ninja-build g++ pkg-config python3 python3-dev libprotobuf-dev
          protobuf-compiler libcli11-dev catch2 zlib1g-dev clang libclang-rt-dev
          # Holistic Trace Analysis, which test/integration/run_trace_reader_tests.py
          # runs on our traces under Debian's python3
          python3-pandas python3-numpy python3-networkx python3-plotly python3-pydot
          python3-psutil python3-yaml
          # TensorBoard's PyTorch profiler plugin, run headless by run_trace_reader_tests.py
          python3-werkzeug
          python3-absl
          # speedscope and the Catapult viewer's polyfill come from npm
          # (scripts/install_trace_readers.sh, which installs npm itself where
          # this node lacks it: NodeSource's nodejs bundles it, Debian's not)
          nodejs
          # PyTorch 1.13 (CPU) for the Python bootstrap's tests (docs/pytorch.md)
          python3-torch
          # callgrind: bench.py's exact instructions per launch
          valgrind
          # build.sh compiles through it when present
          ccache
          # a program on another C++ runtime (clang -stdlib=libc++) for
          # test/install's libc++ test
          libc++-dev
          libc++abi-dev)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Headless Chromium for the tests of `profanalyze html` (driven through the
# DevTools protocol over a pipe, so no Python module is needed). Optional:
# without it those tests skip, so a failed install only warns.
if ! command -v chromium >/dev/null 2>&1; then
  echo "bootstrap: installing chromium (for the html tests)" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null; } ||
    echo "bootstrap: warning: chromium could not be installed; the html tests will skip" >&2
fi

# Headless Firefox for the same tests (WebDriver BiDi, which Firefox serves
# itself: no geckodriver, no Python module). Optional in the same way.
if ! command -v firefox-esr >/dev/null 2>&1 && ! command -v firefox >/dev/null 2>&1; then
  echo "bootstrap: installing firefox-esr (for the html tests)" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends firefox-esr >/dev/null; } ||
    echo "bootstrap: warning: firefox-esr could not be installed; the html tests in Firefox will skip" >&2
fi

# speedscope and the Custom Elements polyfill the Catapult viewer needs, from
# npm, for the trace reader tests (which skip without them).
bash "$(dirname "$0")/install_trace_readers.sh" ||
  echo "bootstrap: warning: the npm trace readers could not be installed; those tests will skip" >&2

# The CUDA toolkit: headers for CUPTI and NVTX, nvcc for the test apps, and the
# runtime libraries the apps link against.
problems=()
[[ -x "$CUDA_HOME/bin/nvcc" ]] || problems+=("nvcc ($CUDA_HOME/bin/nvcc)")
for header in cuda.h cuda_runtime_api.h cupti.h cupti_activity.h nvtx3/nvToolsExt.h; do
  [[ -e "$CUDA_HOME/include/$header" ]] || problems+=("header $header")
done
for library in lib64/libcudart.so.13 lib64/libcupti.so.13 lib64/stubs/libcuda.so; do
  found=""
  for root in "$CUDA_HOME" "$CUDA_HOME/extras/CUPTI"; do
    [[ -e "$root/$library" ]] && found=1
  done
  [[ -n "$found" ]] || problems+=("library $library")
done
if ((${#problems[@]})); then
  echo "bootstrap: the CUDA 13 toolkit at CUDA_HOME=$CUDA_HOME lacks:" >&2
  printf '  - %s\n' "${problems[@]}" >&2
  echo "bootstrap: install the CUDA 13 toolkit or set CUDA_HOME to it" >&2
  exit 1
fi
echo "bootstrap: ok (CUDA toolkit: $CUDA_HOME)" >&2
