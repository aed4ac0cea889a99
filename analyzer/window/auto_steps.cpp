#include "window/auto_steps.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>
#include <unordered_map>

#include "window/repeating_ranges.h"

namespace prof::analyzer {
namespace {

constexpr size_t kMaxCalls = 20000;
constexpr size_t kMaxPeriod = 2000;
// The repeating stretch must cover at least half of the calls.
constexpr double kMinCoverage = 0.5;
constexpr double kTolerance = 0.02;
constexpr size_t kMinRepetitions = 3;

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

// Calls a program spins on while it waits (asyncAPI's cudaEventQuery loop):
// thousands of them repeat with a period of one call, which is no step.
bool is_polling(std::string_view call) {
  return call == "cudaEventQuery" || call == "cudaStreamQuery" || call == "cuEventQuery" || call == "cuStreamQuery";
}

}  // namespace

AutoSteps detect_steps(const Run& run) {
  AutoSteps out;
  // 0. A loop that names its iterations with a counter (step#0, step#1 ...;
  // "iter 3"): the user's own steps, taken before any period of calls.
  for (const RepeatingRange& r : repeating_ranges(run)) {
    if (r.counted_prefix.empty()) continue;
    std::string error;
    out.rule = StepRule::parse(r.rule(), error);
    if (!out.rule) continue;
    out.message = "NVTX ranges " + r.shape + " count " + std::to_string(r.count) + " iterations: --step " + r.rule();
    return out;
  }
  // 1. The busiest thread's calls.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> threads;
  for (size_t i = 0; i < run.cpu_events.size(); ++i)
    if (run.cpu_events[i].kind == CpuEventKind::kApiCall && !is_polling(run.name(run.cpu_events[i].name)))
      threads[{run.cpu_events[i].process, run.cpu_events[i].tid}].push_back(i);
  const std::vector<size_t>* calls = nullptr;
  uint32_t tid = 0;
  for (const auto& [thread, list] : threads)
    if (!calls || list.size() > calls->size()) {
      calls = &list;
      tid = thread.second;
    }
  if (!calls) {
    out.message = "no CUDA API calls recorded, so no period to find; name the steps with --step nvtx:REGEX";
    return out;
  }
  std::vector<size_t> order = *calls;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return run.cpu_events[a].start_ns < run.cpu_events[b].start_ns; });
  if (order.size() > kMaxCalls) order.resize(kMaxCalls);

  std::unordered_map<size_t, NameId> launched;  // call -> kernel name
  for (const GpuActivity& g : run.gpu_activities)
    if (g.kind == GpuKind::kKernel && g.launched_by >= 0) launched.emplace(static_cast<size_t>(g.launched_by), g.name);
  std::map<std::pair<NameId, NameId>, uint32_t> token_ids;
  std::vector<uint32_t> tokens;
  std::vector<std::pair<NameId, NameId>> token_names;  // token -> (call, kernel or kNoName)
  for (size_t i : order) {
    auto k = launched.find(i);
    const std::pair<NameId, NameId> key{run.cpu_events[i].name, k == launched.end() ? Run::kNoName : k->second};
    auto [it, inserted] = token_ids.try_emplace(key, static_cast<uint32_t>(token_names.size()));
    if (inserted) token_names.push_back(key);
    tokens.push_back(it->second);
  }

  // 2. The period. For each candidate p, the longest stretch where every
  // token equals the one p later: such a stretch of length L is L + p calls
  // of clean repetition. Measuring the longest stretch rather than the share
  // over the whole sequence keeps set-up and teardown (and a first step
  // that loads modules lazily) from hiding a loop that ran only a few times.
  const size_t n = tokens.size();
  const size_t max_period = std::min(n / kMinRepetitions, kMaxPeriod);
  std::vector<double> coverage(max_period + 1, 0.0);
  std::vector<size_t> stretch_start(max_period + 1, 0);  // where each period's longest stretch begins
  double best = 0;
  size_t best_period = 0;
  for (size_t p = 1; p <= max_period; ++p) {
    size_t longest = 0;
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      run = tokens[i] == tokens[i + p] ? run + 1 : 0;
      if (run > longest) {
        longest = run;
        stretch_start[p] = i + 1 - run;
      }
    }
    if (longest + p < kMinRepetitions * p) continue;  // fewer than 3 clean repetitions
    coverage[p] = static_cast<double>(longest + p) / static_cast<double>(n);
    if (coverage[p] > best) {
      best = coverage[p];
      best_period = p;
    }
  }
  const std::string where = std::to_string(n) + " CUDA calls of thread " + std::to_string(tid);
  if (best_period == 0 || best < kMinCoverage) {
    out.message = "no repeating launch sequence in the " + where +
                  (best_period ? " (best: " + percent(best) + " of them repeat at a period of " +
                                    std::to_string(best_period) + ")"
                  : max_period == 0 ? std::string(" (too few calls to repeat 3 times)")
                                   : std::string(" (nothing repeats 3 times)")) +
                  "; name the steps with --step nvtx:REGEX, kernel:REGEX or api:NAME";
    return out;
  }
  // The fundamental period: a multiple of it covers as much.
  size_t period = best_period;
  for (size_t p = 1; p < best_period; ++p)
    if (coverage[p] >= best - kTolerance) {
      period = p;
      break;
    }
  out.period = static_cast<int64_t>(period);
  out.match = coverage[period];

  // 3. The rule, from the first repetition of the stretch that was measured:
  // anchoring on the first repetition from the start of the run would pick
  // set-up calls that happen to repeat a few times (three host allocations)
  // over the loop itself.
  const size_t first = stretch_start[period];
  std::map<uint32_t, int> in_period;
  for (size_t i = first; i < first + period; ++i) ++in_period[tokens[i]];
  // A token that marks steps should occur once per period and as rarely as
  // possible outside the stretch (set-up and teardown calls of the same name
  // would cut extra steps); among those, the one seen first in the run, so
  // that a step starts where the loop's first iteration started (the
  // stretch itself may begin mid-iteration, after a first iteration that
  // differs).
  std::map<uint32_t, size_t> total;
  std::map<uint32_t, size_t> first_seen;
  for (size_t i = 0; i < n; ++i) {
    ++total[tokens[i]];
    first_seen.try_emplace(tokens[i], i);
  }
  size_t marker = first;
  auto better = [&](uint32_t a, uint32_t b) {
    return total[a] != total[b] ? total[a] < total[b] : first_seen[a] < first_seen[b];
  };
  for (size_t i = first; i < first + period; ++i)
    if (in_period[tokens[i]] == 1 && (in_period[tokens[marker]] != 1 || better(tokens[i], tokens[marker]))) marker = i;
  std::optional<StepRule> rule;
  std::string how;
  std::string error;
  for (size_t i = first; i < first + period && how.empty(); ++i) {
    const auto [call, kernel] = token_names[tokens[i]];
    if (in_period[tokens[i]] == 1 && kernel == Run::kNoName &&
        run.name(call).find("Synchronize") != std::string::npos) {
      rule = StepRule::make(StepRule::Kind::kApi, run.name(call), error);
      how = "steps end at each " + run.name(call);
    }
  }
  if (how.empty()) {
    const auto [call, kernel] = token_names[tokens[marker]];
    if (kernel != Run::kNoName) {
      rule = StepRule::make(StepRule::Kind::kKernel, "^" + regex_literal(run.name(kernel)) + "$", error);
      how = "steps start at each launch of " + run.name(kernel);
    } else {
      rule = StepRule::make(StepRule::Kind::kApi, run.name(call), error);
      how = "steps start at each " + run.name(call);
    }
  }
  const std::string found = "period of " + std::to_string(period) + " CUDA calls (" + percent(out.match) +
                            " of the " + where + " are clean repetitions of it); " + how;
  if (!rule) {  // a name no rule can spell (not UTF-8, say)
    out.message = found + ", which no --step rule can name: it " + error;
    return out;
  }
  out.rule = rule;
  out.message = found + ": --step " + rule->spelling();
  return out;
}

}  // namespace prof::analyzer
