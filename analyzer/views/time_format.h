#pragma once
// Time and share cells exactly as torch's profiler_util._format_time and
// _format_time_share print them.
#include <optional>
#include <string>

namespace prof::analyzer {

enum class TimeUnit { kAuto, kSeconds, kMilliseconds, kMicroseconds };

// "s", "ms", "us" (torch's time_unit values); nullopt otherwise.
std::optional<TimeUnit> parse_time_unit(const std::string& text);

// kAuto: ">= 1e6 us" -> "%.3fs", ">= 1e3 us" -> "%.3fms", else "%.3fus".
std::string format_time(double time_us, TimeUnit unit = TimeUnit::kAuto);
std::string format_time_ns(uint64_t time_ns, TimeUnit unit = TimeUnit::kAuto);

// "%.2f%%" of total; "NaN" when the total is 0.
std::string format_share(double part, double total);

}  // namespace prof::analyzer
