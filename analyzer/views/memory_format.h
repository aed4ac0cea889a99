#pragma once
// Memory cells as torch's profiler_util._format_memory prints them:
// 1024-based, sign kept, thresholds on the absolute value.
#include <cstdint>
#include <string>

namespace prof::analyzer {

// "%.2f GB", "%.2f MB", "%.2f KB", else "<n> B" (current torch spelling;
// releases before 2.1 printed Gb/Mb/Kb/b).
std::string format_memory(int64_t bytes);

}  // namespace prof::analyzer
