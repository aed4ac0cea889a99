#include "views/time_format.h"

#include <cstdint>
#include <cstdio>

namespace prof::analyzer {
namespace {
std::string printf3(double value, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f%s", value, suffix);
  return buf;
}
}  // namespace

std::optional<TimeUnit> parse_time_unit(const std::string& text) {
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  if (text == "us") return TimeUnit::kMicroseconds;
  return std::nullopt;
}

std::string format_time(double time_us, TimeUnit unit) {
  constexpr double kUsInSecond = 1000.0 * 1000.0;
  constexpr double kUsInMs = 1000.0;
  switch (unit) {
    case TimeUnit::kSeconds: return printf3(time_us / kUsInSecond, "s");
    case TimeUnit::kMilliseconds: return printf3(time_us / kUsInMs, "ms");
    case TimeUnit::kMicroseconds: return printf3(time_us, "us");
    case TimeUnit::kAuto: break;
  }
  if (time_us >= kUsInSecond) return printf3(time_us / kUsInSecond, "s");
  if (time_us >= kUsInMs) return printf3(time_us / kUsInMs, "ms");
  return printf3(time_us, "us");
}

std::string format_time_ns(uint64_t time_ns, TimeUnit unit) {
  return format_time(static_cast<double>(time_ns) / 1000.0, unit);
}

std::string format_share(double part, double total) {
  if (total == 0) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", part * 100.0 / total);
  return buf;
}

}  // namespace prof::analyzer
