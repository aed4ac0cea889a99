#include "cli/html_steps.h"

#include <algorithm>
#include <map>
#include <vector>

namespace prof::analyzer {
namespace {

uint64_t cause(const StepUsage& s, IdleCause c) { return s.idle_by_cause[static_cast<size_t>(c)]; }

struct Bar {
  uint32_t pid = 0;
  int64_t first = 0, last = 0, max_step = 0;
  uint64_t count = 0, duration = 0, kernel = 0, copy = 0, memset = 0, sync = 0, busy = 0, max_duration = 0;

  void add(const StepUsage& s) {
    if (!count++) first = s.step;
    last = s.step;
    duration += s.duration_ns;
    kernel += s.usage.kernel_ns;
    copy += s.usage.copy_ns;
    memset += s.usage.memset_ns;
    sync += cause(s, IdleCause::kSync);
    busy += cause(s, IdleCause::kLaunchOverhead) + cause(s, IdleCause::kOtherCalls) + cause(s, IdleCause::kHostWork);
    if (count == 1 || s.duration_ns > max_duration) max_duration = s.duration_ns, max_step = s.step;
  }
};

}  // namespace

std::string step_bars_json(const AdviseReport& report, const AdviseWindow& window, size_t max_bars) {
  // Each process's steps, in advise's order.
  std::map<uint32_t, std::vector<const StepUsage*>> by_process;
  for (const StepUsage& s : window.steps) by_process[s.process].push_back(&s);
  size_t most = 0;
  for (const auto& [process, steps] : by_process) most = std::max(most, steps.size());
  const size_t per_bar = std::max<size_t>(1, (most + max_bars - 1) / std::max<size_t>(1, max_bars));

  std::vector<Bar> bars;
  for (const auto& [process, steps] : by_process) {
    const uint32_t pid = process < report.processes.size() ? report.processes[process].pid : process;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (i % per_bar == 0) bars.push_back(Bar{pid});
      bars.back().add(*steps[i]);
    }
  }
  std::string out = "{\"step_count\":" + std::to_string(most) + ",\"steps_per_bar\":" + std::to_string(per_bar) +
                    ",\"bars\":[";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    out += (i ? ",{" : "{") + std::string("\"pid\":") + std::to_string(b.pid) + ",\"first\":" + std::to_string(b.first) +
           ",\"last\":" + std::to_string(b.last) + ",\"count\":" + std::to_string(b.count) +
           ",\"duration_ns\":" + std::to_string(b.duration) + ",\"kernel_ns\":" + std::to_string(b.kernel) +
           ",\"copy_ns\":" + std::to_string(b.copy) + ",\"memset_ns\":" + std::to_string(b.memset) +
           ",\"sync_ns\":" + std::to_string(b.sync) + ",\"busy_ns\":" + std::to_string(b.busy) +
           ",\"max_duration_ns\":" + std::to_string(b.max_duration) + ",\"max_step\":" + std::to_string(b.max_step) + "}";
  }
  return out + "]}";
}

}  // namespace prof::analyzer
