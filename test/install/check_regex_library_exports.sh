#!/usr/bin/env bash
# libprof-regex.so (RE2 for the step rule, opened by libprof.so at its first
# regex) exports its one entry, libprof_regex_calls (agent/regex/regex_calls.h),
# and nothing else: libprof.so opens it RTLD_LOCAL, but a program that
# dlopens it, or a lookup by another path, must not meet RE2 or a C++ runtime.
# Usage: check_regex_library_exports.sh path/to/libprof-regex.so
set -euo pipefail
library="$1"
exports=$(nm -D --defined-only "$library" | awk '{print $NF}' | sort)
echo "exports: $(tr '\n' ' ' <<<"$exports")"
if [[ "$exports" != "libprof_regex_calls" ]]; then
  echo "FAIL: $library exports more or other than libprof_regex_calls (agent/regex/regex_library.map)" >&2
  exit 1
fi
echo "ok: $library exports libprof_regex_calls alone"
