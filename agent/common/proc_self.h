#pragma once
// What the agent reads about its own process from /proc/self.
#include <cstdint>
#include <string>
#include <vector>

namespace prof {

// The kernel's comm name of thread `tid` (15 bytes at most); "" when gone.
std::string read_thread_name(uint32_t tid);
// The main program's path, /proc/self/exe; "" when unreadable.
std::string executable_path();
// argv as the kernel holds it; an empty argument stays an element.
std::vector<std::string> command_line();

}  // namespace prof
