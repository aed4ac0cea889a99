#include "common/host_clock.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstring>

#if PROF_HAS_TSC
#include <cpuid.h>
#endif


namespace prof {
namespace host_clock {
std::atomic<int> g_source{kUndecided};
}  // namespace host_clock

namespace {

using host_clock::g_source;

// The pair read when the TSC was chosen, and the writer's latest rate.
// Not in AgentState: read by host_ticks_to_ns_now, beside g_source.
std::atomic<uint64_t> g_first_ticks{0};
std::atomic<uint64_t> g_first_ns{0};
std::atomic<uint64_t> g_ns_per_tick_q32{0};

// CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every
// P-, C- and T-state (Intel's "invariant TSC", AMD's "TscInvariant").
bool tsc_is_invariant() {
#if PROF_HAS_TSC
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007) return false;
  __cpuid(0x80000007, eax, ebx, ecx, edx);
  return (edx >> 8) & 1u;
#else
  return false;
#endif
}

// Whether the kernel still offers the TSC as a clock source: it withdraws
// it when its watchdog finds the TSC unstable (cores out of step, a
// hypervisor that migrates the VM between hosts). No sysfs: the CPU's word.
bool kernel_keeps_tsc() {
  const int fd = ::open("/sys/devices/system/clocksource/clocksource0/available_clocksource", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char text[512];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return true;
  text[n] = '\0';
  for (const char* at = text; (at = strstr(at, "tsc")) != nullptr; at += 3) {
    const bool starts = at == text || at[-1] == ' ';
    const bool ends = at[3] == '\0' || at[3] == ' ' || at[3] == '\n';
    if (starts && ends) return true;
  }
  return false;
}

uint64_t mul_q32(uint64_t ticks, uint64_t ns_per_tick_q32) {
  return static_cast<uint64_t>((static_cast<TickProduct>(ticks) * ns_per_tick_q32) >> 32);
}

}  // namespace

uint64_t host_clock::decide_then_read() {
  int expected = kUndecided;
  if (g_source.compare_exchange_strong(expected, kDeciding, std::memory_order_acq_rel)) {
    const bool tsc = PROF_HAS_TSC && tsc_is_invariant() && kernel_keeps_tsc();
    if (tsc) {
      const TickPair first = read_tick_pair();
      g_first_ticks.store(first.ticks, std::memory_order_relaxed);
      g_first_ns.store(first.ns, std::memory_order_relaxed);
    }
    g_source.store(tsc ? kTsc : kMonotonic, std::memory_order_release);
  } else {
    while (g_source.load(std::memory_order_acquire) == kDeciding) sched_yield();
  }
  return host_ticks();
}

void choose_host_clock(ClockChoice choice) {
  if (choice == ClockChoice::monotonic) g_source.store(host_clock::kMonotonic, std::memory_order_release);
}

bool host_ticks_are_tsc() {
  if (g_source.load(std::memory_order_acquire) < host_clock::kTsc) host_ticks();
  return g_source.load(std::memory_order_acquire) == host_clock::kTsc;
}

TickPair read_tick_pair() {
  TickPair best{0, monotonic_ns()};
  uint64_t best_width = UINT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const uint64_t before = host_clock::read_tsc();
    const uint64_t ns = monotonic_ns();
    const uint64_t after = host_clock::read_tsc();
    if (after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

TickPair first_tick_pair() {
  host_ticks_are_tsc();  // decided, and the pair read if it is the TSC
  return {g_first_ticks.load(std::memory_order_relaxed), g_first_ns.load(std::memory_order_relaxed)};
}

uint64_t host_ticks_to_ns_now(uint64_t ticks) {
  if (is_marked_ns(ticks)) return ticks & ~kNsMark;
  if (g_source.load(std::memory_order_acquire) != host_clock::kTsc) return ticks;  // they are ns
  const uint64_t now_ticks = host_clock::read_tsc();
  const uint64_t now_ns = monotonic_ns();
  if (ticks >= now_ticks) return now_ns;
  uint64_t rate = g_ns_per_tick_q32.load(std::memory_order_relaxed);
  if (rate == 0) {  // before the writer's first calibration: since the first pair
    const uint64_t span_ticks = now_ticks - g_first_ticks.load(std::memory_order_relaxed);
    const uint64_t span_ns = now_ns - g_first_ns.load(std::memory_order_relaxed);
    if (span_ticks < 10'000 || span_ns == 0) return now_ns;  // too short to tell; as short since `ticks`
    rate = static_cast<uint64_t>((static_cast<TickProduct>(span_ns) << 32) / span_ticks);
  }
  const uint64_t since = mul_q32(now_ticks - ticks, rate);
  return now_ns > since ? now_ns - since : 0;
}

void publish_ns_per_tick(uint64_t ns_per_tick_q32) {
  g_ns_per_tick_q32.store(ns_per_tick_q32, std::memory_order_relaxed);
}

}  // namespace prof
