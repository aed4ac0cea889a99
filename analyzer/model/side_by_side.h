#pragma once
// Two independent pieces of a command's work at once, on two cores, where
// the command may use them (PROFANALYZE_JOBS, cores_for).
#include <malloc.h>

#include <system_error>
#include <thread>

#include "model/cores.h"

namespace prof::analyzer {

// Runs `first` on this thread and `second` on a thread of its own, and
// returns when both have; one after the other here when `jobs` allows one
// core or no thread can be started. The two must not write the same data:
// join() makes what `second` wrote visible to the caller.
//
// What the two freed is handed back before it returns: glibc keeps a
// thread's freed lists of a few MB in its heap arena (under the mmap
// threshold once larger ones were freed), 33-75 MB at 10M events under the
// work that follows.
template <typename First, typename Second>
void side_by_side(unsigned jobs, First&& first, Second&& second) {
  struct HandBack {
    ~HandBack() { malloc_trim(0); }
  } hand_back;  // destroyed after `join`, below
  std::thread helper;
  if (cores_for(jobs) >= 2) {
    try {
      helper = std::thread([&second] { second(); });
    } catch (const std::system_error&) {
      // No thread to be had: this one does both.
    }
  }
  // Joined however `first` leaves: a joinable thread's destructor would end
  // the process.
  struct Join {
    std::thread& thread;
    ~Join() {
      if (thread.joinable()) thread.join();
    }
  } join{helper};
  const bool second_here = !helper.joinable();
  first();
  if (second_here) second();
}

}  // namespace prof::analyzer
