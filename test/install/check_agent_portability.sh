#!/usr/bin/env bash
# libprof.so must load into any x86-64 Linux program with glibc 2.17 or newer
# (manylinux2014), whatever C++ runtime the program carries:
#   - no glibc symbol imported at a version newer than GLIBC_2.17
#     (agent/glibc_2_17_symbols.cpp redirects the newer ones);
#   - no C++ runtime imported (GLIBCXX, CXXABI, GCC versions, libstdc++,
#     libgcc_s): libstdc++ and libgcc are linked in, hidden;
#   - no C++ runtime symbol exported (std::, __cxa_*, operator new);
#   - no library needed beyond the list below. A library the agent starts
#     using (RE2, say) must be linked in statically, or added here with the
#     reason it is safe in every process. Not libpthread.so.0 or libdl.so.2:
#     empty since glibc 2.34, loading them cost every process +0.08 ms;
#   - so nothing that glibc 2.17 keeps only in those two
#     (glibc_2_17_libpthread_libdl_only.txt) is imported: linked here, such
#     an import names libc.so.6 as the file of its version, and before 2.34
#     the loader stops the program when libc lacks it, weak or not
#     (dl-lookup.c: "relocation error ... not defined in file libc.so.6").
#     agent/glibc_2_17_symbols.cpp finds them at run time instead.
# Usage: check_agent_portability.sh path/to/libprof.so
set -euo pipefail
agent="$1"
newest_allowed_glibc="2.17"
allowed_needed=(libc.so.6 libm.so.6 ld-linux-x86-64.so.2)
only_in_libpthread_or_libdl="$(dirname "$0")/glibc_2_17_libpthread_libdl_only.txt"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

imports=$(objdump -T "$agent")
glibc_versions=$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$imports" | sort -u -V)
newest=$(tail -n 1 <<<"$glibc_versions")
echo "glibc versions imported: $(tr '\n' ' ' <<<"$glibc_versions")"
if [[ "$(printf '%s\n' "GLIBC_$newest_allowed_glibc" "$newest" | sort -V | tail -n 1)" != "GLIBC_$newest_allowed_glibc" ]]; then
  fail "imports $newest, newer than GLIBC_$newest_allowed_glibc; these symbols need a line in agent/glibc_2_17_symbols.cpp:"
  while read -r version; do
    if [[ "$(printf '%s\n' "GLIBC_$newest_allowed_glibc" "$version" | sort -V | tail -n 1)" != "GLIBC_$newest_allowed_glibc" ]]; then
      grep -F "($version)" <<<"$imports" | awk '{print "  " $NF " " $(NF-1)}' >&2 || true
      grep -F " $version " <<<"$imports" | awk '{print "  " $NF " " $(NF-1)}' >&2 || true
    fi
  done <<<"$glibc_versions"
fi

runtime_versions=$(grep -oE '(GLIBCXX|CXXABI|GCC)_[0-9][0-9.]*' <<<"$imports" | sort -u || true)
[[ -z "$runtime_versions" ]] || fail "imports C++ runtime versions: $(tr '\n' ' ' <<<"$runtime_versions")"

exported_runtime=$(nm -D --defined-only "$agent" | awk '{print $NF}' |
  grep -E '^(_ZNS|_ZNKS|_ZSt|_ZNSt|_ZNKSt|_ZTVN10__cxxabiv|__cxa_|__gxx_|_Znw|_Zna|_Zdl|_Zda|_Unwind_)' || true)
[[ -z "$exported_runtime" ]] || fail "exports C++ runtime symbols: $(head -n 5 <<<"$exported_runtime" | tr '\n' ' ')"

# Fails unless each library of $2 (one a line) is in allowed_needed; $1
# says what the agent does with it.
only_allowed_libraries() {
  local what=$1 library candidate allowed
  while read -r library; do
    [[ -z "$library" ]] && continue
    allowed=""
    for candidate in "${allowed_needed[@]}"; do [[ "$library" == "$candidate" ]] && allowed=1; done
    [[ -n "$allowed" ]] || fail "$what $library (allowed: ${allowed_needed[*]})"
  done <<<"$2"
}

needed=$(readelf -d "$agent" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "needed: $(tr '\n' ' ' <<<"$needed")"
only_allowed_libraries "needs" "$needed"

# The loader checks each version an import names against the file the
# version-needs section names (dl-version.c), which must be loaded: a
# libpthread.so.0 there would fail as a needed library does.
version_files=$(readelf -V "$agent" | sed -n 's/.*File: \([^ ]*\).*/\1/p' | sort -u)
only_allowed_libraries "names versions of" "$version_files"

# readelf: Num Value Size Type Bind Vis Ndx Name@VERSION (index)
undefined=$(readelf -W --dyn-syms "$agent" | awk '$7 == "UND" && NF >= 8 {sub(/@.*/, "", $8); print $8}')
kept_apart=$(grep -v '^#' "$only_in_libpthread_or_libdl")
[[ -n "$kept_apart" ]] || fail "no names in $only_in_libpthread_or_libdl"
while read -r name; do
  grep -qxF "$name" <<<"$kept_apart" || continue
  fail "imports $name, which glibc before 2.34 keeps in libpthread.so.0 or libdl.so.2: add it to agent/glibc_2_17_symbols.cpp"
done <<<"$undefined"

if ((failures)); then
  echo "$agent is not portable: $failures problem(s)" >&2
  exit 1
fi
echo "ok: $agent needs glibc $newest_allowed_glibc or newer (newest import $newest) and no C++ runtime"
