#!/usr/bin/env bash
# The heap pages a process that never records pays for under
# LD_PRELOAD=libprof.so (issue #30, docs/performance.md "Start-up, sixth
# round"): each page first written is a zero-filled page fault. At start-up
# the agent allocates only what it must (its configuration, the run, the
# recorder, what the writer will be made from: about 1 KB); the writer is
# made at the first record. With libstdc++'s emergency exception pool (72
# KB, allocated by the agent's static initialisers) that is 2 pages of
# heap: the first, which holds malloc's own table, the agent's objects and
# the pool's head, and the one after the pool where malloc's top chunk
# begins. A third page means the agent's start-up objects no longer fit
# in the first.
# Usage: check_agent_startup_heap.sh path/to/libprof.so
set -euo pipefail
agent="$1"
max_heap_kb=8

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Reads its own [heap] line's Rss from /proc/self/smaps at main, without
# malloc or stdio (which would grow the heap it measures).
cat >"$work/heap_rss.c" <<'C'
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
static char text[1 << 20];
int main(void) {
  int fd = open("/proc/self/smaps", O_RDONLY);
  if (fd < 0) return 2;
  size_t size = 0;
  ssize_t got;
  while (size < sizeof(text) - 1 && (got = read(fd, text + size, sizeof(text) - 1 - size)) > 0) size += (size_t)got;
  text[size] = '\0';
  const char* heap = strstr(text, "[heap]");
  const char* rss = heap != NULL ? strstr(heap, "\nRss:") : NULL;
  if (rss == NULL) {
    write(1, "0\n", 2);
    return 0;
  }
  rss += 5;
  while (*rss == ' ') ++rss;
  const char* end = rss;
  while (*end >= '0' && *end <= '9') ++end;
  write(1, rss, (size_t)(end - rss));
  write(1, "\n", 1);
  return 0;
}
C
"${CC:-cc}" -O1 -o "$work/heap_rss" "$work/heap_rss.c"

# No PROF_ variables of the caller's: a process as a shell under an
# exported LD_PRELOAD would start it.
clean_env=(env -u PROF_OUTPUT -u PROF_RUN -u PROF_LOG -u PROF_STEP -u PROF_START -u PROF_DELAY
           -u PROF_SCHEDULE -u NVTX_INJECTION64_PATH -u CUDA_INJECTION64_PATH TMPDIR="$work" PROF_LOG=quiet)
without=$("${clean_env[@]}" "$work/heap_rss")
with=$("${clean_env[@]}" LD_PRELOAD="$agent" "$work/heap_rss")
echo "[heap] resident at main: $with kB under the agent, $without kB without it"
if ((with > max_heap_kb)); then
  echo "FAIL: a process that never records has $with kB of heap resident at main under the agent (at most $max_heap_kb):" \
    "something the agent allocates at start-up could wait for the first record (agent.cpp, made_writer)" >&2
  exit 1
fi
echo "ok: $agent costs a process that never records at most $max_heap_kb kB of heap"
