// The agent's lines: a line without conversions, or passed whole ("%s"), is
// copied rather than formatted (log.cpp); either way it must read as
// vsnprintf would have written it, cut to the same length.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/log.h"

namespace {

// The lines said while held, as `say` sees them (without "\n"); false:
// nothing is written to the test's stderr.
std::vector<std::string> held_lines_of(void (*log)()) {
  std::vector<std::string> lines;
  prof::hold_lines();
  log();
  prof::release_held_lines(
      [](const char* line, void* context) {
        static_cast<std::vector<std::string>*>(context)->push_back(line);
        return false;
      },
      &lines);
  return lines;
}

constexpr size_t kLongest = 1024 - sizeof("libprof: ") - 1;  // what fits beside the prefix and "\n"

}  // namespace

TEST_CASE("log lines: plain, whole and formatted lines read the same") {
  prof::set_log_level(prof::LogLevel::info);
  CHECK(held_lines_of([] { prof::log_info("nothing recorded; no file written"); }) ==
        std::vector<std::string>{"libprof: nothing recorded; no file written"});
  CHECK(held_lines_of([] { prof::log_info("%s", "wrote run.pb (12 bytes)"); }) ==
        std::vector<std::string>{"libprof: wrote run.pb (12 bytes)"});
  CHECK(held_lines_of([] { prof::log_error("%s and %d", "a", 7); }) == std::vector<std::string>{"libprof: a and 7"});
  CHECK(held_lines_of([] { prof::log_error("100%% sure"); }) == std::vector<std::string>{"libprof: 100% sure"});
  CHECK(held_lines_of([] { prof::log_debug("not at info"); }).empty());
}

TEST_CASE("log lines: a line too long is cut at the same length whichever way it was made") {
  prof::set_log_level(prof::LogLevel::info);
  static const std::string longer(3000, 'x');
  const std::vector<std::string> expected{"libprof: " + std::string(kLongest, 'x')};
  CHECK(held_lines_of([] { prof::log_info("%s", longer.c_str()); }) == expected);
  CHECK(held_lines_of([] { prof::log_info("%s.", longer.c_str()); }) == expected);  // formatted
  static const std::string plain = longer;  // no '%': the format is the line
  CHECK(held_lines_of([] { prof::log_info(plain.c_str()); }) == expected);
}
