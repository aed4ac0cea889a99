#include "window/repeating_ranges.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

namespace prof::analyzer {
namespace {

constexpr int64_t kMinRepetitions = 3;

// "step#12" -> "step#"; "iter 3" -> "iter "; "" when the name does not end
// in a counter (or is nothing but one).
std::string counter_prefix(const std::string& name) {
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == name.size() || digits == 0) return {};
  return name.substr(0, digits);
}

}  // namespace

std::string regex_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string RepeatingRange::rule() const {
  return counted_prefix.empty() ? "nvtx:^" + regex_literal(shape) + "$"
                                : "nvtx:^" + regex_literal(counted_prefix) + "[0-9]+$";
}

std::vector<RepeatingRange> repeating_ranges(const Run& run) {
  std::map<NameId, int64_t> by_name;
  for (const CpuEvent& e : run.cpu_events)
    if (e.kind != CpuEventKind::kApiCall) ++by_name[e.name];
  std::map<std::string, RepeatingRange> shapes;
  std::map<std::string, int64_t> counters;  // distinct counters per counted shape
  for (const auto& [name_id, count] : by_name) {
    const std::string& name = run.name(name_id);
    const std::string prefix = counter_prefix(name);
    const std::string shape = prefix.empty() ? name : prefix + "N";
    RepeatingRange& r = shapes[shape];
    r.shape = shape;
    r.counted_prefix = prefix;
    r.count += count;
    if (!prefix.empty()) ++counters[shape];
  }
  std::vector<RepeatingRange> out;
  for (auto& [shape, r] : shapes) {
    // A counted shape needs its counter to change: "layer1" seen 20 times is
    // one name, not a loop's iterations.
    if (!r.counted_prefix.empty() && counters[shape] < kMinRepetitions) {
      r.counted_prefix.clear();
      continue;  // its names are counted under their own shapes below
    }
    if (r.count >= kMinRepetitions) out.push_back(r);
  }
  // Names that ended in a number but did not count: as plain names.
  for (const auto& [name_id, count] : by_name) {
    const std::string& name = run.name(name_id);
    const std::string prefix = counter_prefix(name);
    if (prefix.empty() || counters[prefix + "N"] >= kMinRepetitions || count < kMinRepetitions) continue;
    out.push_back({name, "", count});
  }
  std::stable_sort(out.begin(), out.end(), [](const RepeatingRange& a, const RepeatingRange& b) {
    if (a.count != b.count) return a.count > b.count;
    return !a.counted_prefix.empty() && b.counted_prefix.empty();
  });
  return out;
}

}  // namespace prof::analyzer
