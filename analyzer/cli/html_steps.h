#pragma once
// The step bars of `profanalyze html`'s overview and ranks views, from
// advise's per-step usage: one bar per step up to a bound, beyond it one
// bar per run of consecutive steps, so the page's size and drawing time do
// not grow with the number of steps.

#include <cstddef>
#include <string>

#include "advise/advise_format.h"

namespace prof::analyzer {

// {"step_count":N,"steps_per_bar":G,"bars":[{"pid","first","last","count",
// "duration_ns","kernel_ns","copy_ns","memset_ns","sync_ns","busy_ns",
// "max_duration_ns","max_step"}, ...]}: each process's steps in runs of G
// (G = 1 while no process has more than `max_bars` steps), times summed over
// the run's steps (busy: launch overhead, other CUDA calls, host work), so
// with G = 1 each bar is advise's step exactly.
std::string step_bars_json(const AdviseReport& report, const AdviseWindow& window, size_t max_bars = 200);

}  // namespace prof::analyzer
