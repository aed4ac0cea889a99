#pragma once
// Temporary files and an in-process profanalyze for the analyzer's tests.
#include <atomic>
#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "capture_file_writer.h"
#include "cli/prof_analyze.h"
#include "model/run.h"
#include "model/run_builder.h"

namespace prof::testing {

// A file under the temp dir, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& stem = "capture") {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("profanalyze-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + stem + ".pb"))
                .string();
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  const TempFile& write(const std::string& bytes) const {
    CaptureFileWriter::write_file(path_, bytes);
    return *this;
  }

 private:
  std::string path_;
};

struct CliResult {
  int exit_code;
  std::string out;
  std::string err;
};

inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "profanalyze");
  std::ostringstream out, err;
  const int code = prof::analyzer::run_prof_analyze(args, out, err);
  return {code, out.str(), err.str()};
}

// Loads files into a Run; REQUIREs nothing, returns the error text ("" if none).
inline std::string load(const std::vector<std::string>& paths, prof::analyzer::Run& run,
                        std::string* warnings = nullptr) {
  std::ostringstream warn;
  auto error = prof::analyzer::load_run(paths, run, warn);
  if (warnings) *warnings = warn.str();
  return error ? error->describe() : std::string();
}

// Number of lines in text.
inline size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace prof::testing
