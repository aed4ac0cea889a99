#!/usr/bin/env bash
# What every process under LD_PRELOAD=libprof.so pays before the agent does
# anything, recording or not (a shell pipeline or `make` pays it per
# process; issue #30, docs/performance.md "Start-up"): the loader relocates
# the library and runs its static initialisers, and each page first written
# is a page fault. This keeps out what once made it heavy:
#   - libstdc++'s iostreams and locales (RE2's logging pulled them in: five
#     static initialisers, 2,300 relocations, their vtables' pages);
#   - symbol lookups for the agent's own CUDA wrappers (the wrapper tables
#     point to hidden aliases: 400 lookups when they named the exported
#     functions);
#   - large zero-initialised tables among the small variables start-up
#     writes (they go to .lbss, common/large_zeroed.h);
#   - tables of pointers of our own: each entry is a relative relocation,
#     which the loader writes, a page of copy-on-write per 512 of them (the
#     CUDA wrappers' tables were 424, capture/hooks/wrapper_offsets.h);
#   - RE2, whose Unicode, POSIX and Perl class tables were 615 of those
#     relocations and 3 relocated pages: it lives in libprof-regex.so, opened
#     at the first regex (agent/regex/companion_regex.cpp). 557 relocations
#     are left, libstdc++'s tables most of them.
# Usage: check_agent_startup_footprint.sh path/to/libprof.so
set -euo pipefail
agent="$1"
max_bss_bytes=8192
max_relative_relocations=700

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

symbols=$(nm -C "$agent" 2>/dev/null || true)
if [[ -z "$symbols" ]]; then
  echo "note: $agent has no symbol table; the iostream check is skipped"
else
  streams=$(grep -E ' (std::locale::|std::ios_base::|std::basic_ostream<|std::__cxx11::basic_ostringstream<)' <<<"$symbols" |
    head -n 3 || true)
  [[ -z "$streams" ]] || fail "links libstdc++'s iostreams or locales: $(tr '\n' ' ' <<<"$streams")"
  regex=$(grep -F ' re2::' <<<"$symbols" | head -n 3 || true)
  [[ -z "$regex" ]] || fail "links RE2 (it belongs in libprof-regex.so, shared/CMakeLists.txt): $(tr '\n' ' ' <<<"$regex")"
fi

symbolic=$(readelf -rW "$agent" | awk '$3 == "R_X86_64_64" || $3 == "R_X86_64_GLOB_DAT" {print $5}')
own_exports=$(nm -D --defined-only "$agent" | awk '{print $NF}')
looked_up=$(grep -Fxf <(sed 's/@.*//' <<<"$own_exports") <(sed 's/@.*//' <<<"$symbolic") || true)
[[ -z "$looked_up" ]] ||
  fail "$(wc -l <<<"$looked_up") relocations name the agent's own exported symbols (the loader looks each up): $(head -n 3 <<<"$looked_up" | tr '\n' ' ')"

relative=$(readelf -rW "$agent" | grep -c R_X86_64_RELATIVE || true)
echo "relative relocations: $relative"
((relative <= max_relative_relocations)) ||
  fail "$relative relative relocations (at most $max_relative_relocations): a table of pointers could be offsets (name_text.h, wrapper_offsets.h)"

bss_hex=$(readelf -SW "$agent" | awk '$2 == ".bss" {print $6}')
bss_bytes=$((16#${bss_hex:-0}))
echo ".bss: $bss_bytes bytes; symbolic relocations: $(grep -c . <<<"$symbolic" || true)"
((bss_bytes <= max_bss_bytes)) ||
  fail ".bss is $bss_bytes bytes (at most $max_bss_bytes): a large zero-initialised table belongs in .lbss (PROF_LARGE_ZEROED)"

if ((failures)); then
  echo "$agent: $failures start-up footprint problem(s)" >&2
  exit 1
fi
echo "ok: $agent links no iostreams and no RE2, looks none of its own symbols up, keeps its relocations few and .bss small"
