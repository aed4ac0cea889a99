#include "views/TimeFormat.h"

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

std::optional<TimeUnit> parseTimeUnit(const std::string& text) {
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  if (text == "us") return TimeUnit::kMicroseconds;
  return std::nullopt;
}

std::string formatTime(double timeUs, TimeUnit unit) {
  constexpr double kUsInSecond = 1000.0 * 1000.0;
  constexpr double kUsInMs = 1000.0;
  switch (unit) {
    case TimeUnit::kSeconds: return printf3(timeUs / kUsInSecond, "s");
    case TimeUnit::kMilliseconds: return printf3(timeUs / kUsInMs, "ms");
    case TimeUnit::kMicroseconds: return printf3(timeUs, "us");
    case TimeUnit::kAuto: break;
  }
  if (timeUs >= kUsInSecond) return printf3(timeUs / kUsInSecond, "s");
  if (timeUs >= kUsInMs) return printf3(timeUs / kUsInMs, "ms");
  return printf3(timeUs, "us");
}

std::string formatTimeNs(uint64_t timeNs, TimeUnit unit) {
  return formatTime(static_cast<double>(timeNs) / 1000.0, unit);
}

std::string formatShare(double part, double total) {
  if (total == 0) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", part * 100.0 / total);
  return buf;
}

}  // namespace prof::analyzer
