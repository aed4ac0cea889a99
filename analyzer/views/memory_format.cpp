#include "views/memory_format.h"

#include <cstdio>
#include <cstdlib>

namespace prof::analyzer {

std::string format_memory(int64_t bytes) {
  constexpr double kKB = 1024.0;
  constexpr double kMB = 1024.0 * kKB;
  constexpr double kGB = 1024.0 * kMB;
  const double value = static_cast<double>(bytes);
  const double magnitude = value < 0 ? -value : value;
  char buf[64];
  if (magnitude >= kGB) {
    std::snprintf(buf, sizeof buf, "%.2f GB", value / kGB);
  } else if (magnitude >= kMB) {
    std::snprintf(buf, sizeof buf, "%.2f MB", value / kMB);
  } else if (magnitude >= kKB) {
    std::snprintf(buf, sizeof buf, "%.2f KB", value / kKB);
  } else {
    return std::to_string(bytes) + " B";
  }
  return buf;
}

}  // namespace prof::analyzer
