#pragma once
// The clock of the app threads' records: host ticks. Where the CPU's
// time-stamp counter is invariant (CPUID 0x80000007 EDX bit 8: it runs at
// one rate in every power state, in step on every core) and the kernel
// still counts it among its clock sources (it drops it when its watchdog
// finds it unstable, as under some hypervisors), a tick is one TSC count,
// read with rdtsc (about 7 ns: half of one clock_gettime). Elsewhere, or
// with PROF_CLOCK=monotonic, ticks are CLOCK_MONOTONIC's nanoseconds.
//
// Ticks never reach the file: the writer turns them into CLOCK_MONOTONIC
// nanoseconds (TickCalibration, from (ticks, ns) pairs it reads over the
// run), the clock of every time in the file, of CUPTI's GPU timestamps and
// of simcuda's truth log. Times that are not read on the app thread's hot
// path (windows, steps, the writer's own) stay on monotonic_ns().
//
// The choice is made on the first read, not at start-up: a process that
// never records never asks the CPU (CPUID traps to the hypervisor in a VM).
#include <atomic>
#include <cstdint>

#include "common/clock.h"
#include "common/option_words.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PROF_HAS_TSC 1
#else
#define PROF_HAS_TSC 0
#endif

namespace prof {

// 64 x 64 -> 128-bit products for the tick arithmetic (GCC's and Clang's;
// __extension__ keeps -Wpedantic quiet about it).
__extension__ typedef unsigned __int128 TickProduct;

// PROF_CLOCK: auto (the TSC where it is invariant and usable) or
// monotonic (always clock_gettime; what tests use to check the fallback).
enum class ClockChoice : uint8_t { automatic, monotonic };
inline constexpr OptionWord<ClockChoice> kClockWords[] = {{"auto", ClockChoice::automatic},
                                                          {"monotonic", ClockChoice::monotonic}};

// A TSC reading and the CLOCK_MONOTONIC time read between two of them.
struct TickPair {
  uint64_t ticks;
  uint64_t ns;
};

namespace host_clock {
enum Source : int { kUndecided = 0, kDeciding, kTsc, kMonotonic };
// Not in AgentState: read on every recorded event, before anything else.
extern std::atomic<int> g_source;
uint64_t decide_then_read();

inline uint64_t read_tsc() {
#if PROF_HAS_TSC
  return __rdtsc();
#else
  return monotonic_ns();
#endif
}
}  // namespace host_clock

// Now, in host ticks. On the app thread's hot path: right next to what it
// times (no call into the agent's work between the two).
inline uint64_t host_ticks() {
  const int source = host_clock::g_source.load(std::memory_order_relaxed);
  if (source == host_clock::kTsc) return host_clock::read_tsc();
  if (source == host_clock::kMonotonic) return monotonic_ns();
  return host_clock::decide_then_read();
}

// The configuration's choice (start-up; reads nothing). A forced
// PROF_CLOCK=monotonic is in effect at once; auto decides on the first read.
void choose_host_clock(ClockChoice choice);

// Whether ticks are TSC counts (false: they are ns). Decides if undecided.
bool host_ticks_are_tsc();

// A (TSC, CLOCK_MONOTONIC) pair, the tightest of a few tries: the TSC read
// on both sides of clock_gettime, their midpoint, so that a pair is off by
// a few ns rather than by a preemption between two reads.
TickPair read_tick_pair();

// The pair read when the TSC was chosen (the start of every calibration).
TickPair first_tick_pair();

// `ticks`, a moment shortly before now, in CLOCK_MONOTONIC ns, for the app
// thread's rare paths that need it (a step that begins at a call's entry):
// now minus the time since, at the rate of the longest baseline known.
// Within the writer's conversion of the same ticks by its calibration's
// error (well under a microsecond).
uint64_t host_ticks_to_ns_now(uint64_t ticks);

// A time that begins a step (or the profiler range) is converted once, on
// the app thread, and the call whose entry it is carries that very ns value
// in place of its ticks, marked by the top bit (ticks and ns never reach
// 2^63), so that the writer puts the call exactly at the boundary rather
// than a few ns to either side of it (and out of the window it opens).
inline constexpr uint64_t kNsMark = uint64_t{1} << 63;
// `ticks` (host_ticks_to_ns_now) as the marked ns to store for its call.
inline uint64_t ns_in_place_of_ticks(uint64_t ns) { return ns | kNsMark; }
// ns from either: the marked ns itself, or the ticks converted by `convert`.
inline bool is_marked_ns(uint64_t ticks_or_ns) { return (ticks_or_ns & kNsMark) != 0; }

// The writer's calibration, for host_ticks_to_ns_now: ns per tick, 2^-32.
void publish_ns_per_tick(uint64_t ns_per_tick_q32);

}  // namespace prof
