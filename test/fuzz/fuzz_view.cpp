// libFuzzer target: one profanalyze subcommand (FUZZ_VIEW: info, report,
// stacks, trace, dump, advise, html) over arbitrary file bytes, through the CLI's own entry
// point. It must behave as the corrupt-capture test demands: exit 0, or exit
// 1 with one error line naming the byte offset; anything else (a crash, a
// sanitizer report, another exit code) is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/prof_analyze.h"

#ifndef FUZZ_VIEW
#error "FUZZ_VIEW names the subcommand"
#endif

namespace {

// The views' output is not checked, only how they end: discarded unformatted.
class DiscardBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

int g_fd = -1;
std::string g_path;

std::vector<std::string> command_line(size_t size) {
  const std::string view = FUZZ_VIEW;
  std::vector<std::string> args{"profanalyze", view};
  // No symbol lookups: module paths come from the fuzzed bytes and could name
  // any file (a FIFO, /dev/zero).
  if (view == "stacks" || view == "advise" || view == "html") args.push_back("--no-symbols");
  if (view == "trace") args.insert(args.end(), {"-o", "/dev/null"});
  if (view == "html") args.insert(args.end(), {"-o", "-"});  // into the discarded stream
  args.push_back(g_path);
  // Odd-sized inputs read twice: report's table then goes one file at a
  // time (cli/report_file_by_file.h), or back to one Run.
  if (view == "report" && size % 2 == 1) args.push_back(g_path);
  return args;
}

bool one_line_naming_offset(const std::string& err) {
  std::istringstream lines(err);
  std::string line;
  int errors = 0;
  bool names_offset = false;
  while (std::getline(lines, line)) {
    if (line.rfind("profanalyze: warning:", 0) == 0) continue;
    ++errors;
    names_offset = line.rfind("profanalyze: ", 0) == 0 && line.find("byte ") != std::string::npos;
  }
  return errors == 1 && names_offset;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // In memory, under a path the analyzer opens like any file.
  g_fd = memfd_create("capture.pb", 0);
  if (g_fd < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  g_path = "/proc/self/fd/" + std::to_string(g_fd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (ftruncate(g_fd, 0) != 0 ||
      pwrite(g_fd, data, size, 0) != static_cast<ssize_t>(size)) {
    std::abort();
  }
  DiscardBuffer discard;
  std::ostream out(&discard);
  std::ostringstream err;
  const int code = prof::analyzer::run_prof_analyze(command_line(size), out, err);
  if (code == prof::analyzer::kExitOk) return 0;
  if (code != prof::analyzer::kExitBadInput || !one_line_naming_offset(err.str())) {
    std::fprintf(stderr, "profanalyze %s: exit %d, stderr:\n%s\n", FUZZ_VIEW, code, err.str().c_str());
    std::abort();
  }
  return 0;
}
