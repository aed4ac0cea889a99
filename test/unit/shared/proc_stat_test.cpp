#include "proc_stat.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace prof {
namespace {

// A /proc/PID/stat line as the kernel writes it, with `comm` in field 2 and
// starttime (field 22) 98765432.
std::string stat_line(const std::string& comm) {
  return "4242 (" + comm +
         ") S 1 4242 4242 0 -1 4194560 1234 0 0 0 7 3 0 0 20 0 3 0 98765432 123456789 2048 "
         "18446744073709551615 1 1 0 0 0 0 0 4096 1260 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

TEST_CASE("stat_start_ticks reads field 22 after the command name") {
  CHECK(stat_start_ticks(stat_line("python3")) == "98765432");
}

TEST_CASE("a command name with spaces and ')' does not shift the fields") {
  // prctl(PR_SET_NAME) and the program's file name allow any byte but NUL:
  // counted from the first ')', or split at spaces, the fields would move.
  CHECK(stat_start_ticks(stat_line("a) b (c")) == "98765432");
  CHECK(stat_start_ticks(stat_line(") ) )")) == "98765432");
  CHECK(stat_start_ticks(stat_line(" 1 2 3 ")) == "98765432");
  CHECK(stat_start_ticks(stat_line("")) == "98765432");
}

TEST_CASE("a cut-short or malformed line gives no start time") {
  CHECK(stat_start_ticks("") == "");
  CHECK(stat_start_ticks("4242 (no closing parenthesis S 1") == "");
  const std::string full = stat_line("app");
  // Cut inside field 21: no field 22 to read, not field 21 taken for it.
  const size_t field_22 = full.find("98765432");
  CHECK(stat_start_ticks(full.substr(0, field_22)) == "");
  CHECK(stat_start_ticks(full.substr(0, field_22 - 1) + "\n") == "");
  // Field 22 last on the line: its end is the newline.
  CHECK(stat_start_ticks(full.substr(0, field_22 + 8) + "\n") == "98765432");
  CHECK(stat_start_ticks(full.substr(0, field_22 + 8)) == "98765432");
}

TEST_CASE("process_start_ticks reads this process's line, whatever its name") {
  // The thread's comm is what /proc/PID/stat shows; give it the classic trap.
  char old_name[17] = {};
  prctl(PR_GET_NAME, old_name);
  prctl(PR_SET_NAME, "x) y (z) 1 2 3");
  std::ifstream file("/proc/self/stat");
  std::string line;
  std::getline(file, line);
  const std::string self = process_start_ticks(0);
  const std::string by_pid = process_start_ticks(getpid());
  prctl(PR_SET_NAME, old_name);
  REQUIRE(line.find("x) y (z) 1 2 3") != std::string::npos);
  // Field 22 by counting the fields after the last ')' by hand.
  std::istringstream after(line.substr(line.rfind(')') + 1));
  std::string field;
  for (int number = 3; number <= 22; ++number) after >> field;
  CHECK(self == field);
  CHECK(by_pid == field);
  CHECK(!self.empty());
}

TEST_CASE("process_start_ticks of a process that does not exist is empty") {
  // Above /proc/sys/kernel/pid_max's ceiling (4194304): never a live pid.
  CHECK(process_start_ticks(int64_t{1} << 40) == "");
}

}  // namespace
}  // namespace prof
