#pragma once
// `--step auto`: finds the repeating period of the CUDA call sequence of a
// program with no step annotations, and turns it into an explicit rule the
// user can reuse.
//
// Algorithm:
//  0. NVTX ranges whose names count (step#0, step#1, ...; "iter 3": at
//     least 3 counters, repeating_ranges.h) are the loop's own steps: the
//     rule takes them (nvtx:^step#[0-9]+$) before any period of calls.
//  1. The sequence: the CUDA API calls of the busiest thread (most calls)
//     of the busiest process, in start order, polling calls left out
//     (cudaEventQuery, cudaStreamQuery and the driver's: a wait spinning on
//     them repeats with a period of one call, which is no step), each a
//     token of its name plus
//     the name of the kernel it launched (so launches of different kernels
//     differ). At most the first kMaxCalls calls are used.
//  2. The period: for each candidate p (1 .. min(n / 3, kMaxPeriod)), the
//     longest stretch of positions i with token[i] == token[i + p]; a
//     stretch of length L is L + p calls of clean repetition (its coverage
//     of the sequence). Set-up, teardown and a first step that differs (lazy
//     module loading) do not break a stretch in the middle. The period is
//     the smallest p whose coverage is within 2 points of the best; the best
//     must cover half of the calls with at least 3 repetitions.
//  3. The rule, from the first repetition of the longest stretch measured
//     for that period (not the first repetition from the start of the run,
//     which may be set-up calls that happen to repeat): a synchronization
//     call that occurs once per period ends a step (api:NAME, the loop waits
//     at its end); otherwise the token that occurs once per period and least
//     often outside the stretch starts one (kernel: for a launch, api: for
//     other calls; ties go to the token seen first in the run, where the
//     loop's first iteration began).
#include <cstdint>
#include <optional>
#include <string>

#include "model/run.h"
#include "window/steps.h"

namespace prof::analyzer {

struct AutoSteps {
  std::optional<StepRule> rule;  // nullopt: no period found
  int64_t period = 0;            // CUDA calls per step
  double match = 0;              // share of the calls in the repeating stretch
  std::string message;           // what was found, or why nothing was
};

AutoSteps detect_steps(const Run& run);

}  // namespace prof::analyzer
