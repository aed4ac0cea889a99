#pragma once
// Loads capture files into a Run: reads chunk by chunk, applies each
// chunk's definitions before its records (FORMAT.md, Interning), decodes
// delta-encoded times, resolves interned names, then links GPU activity to
// the API calls that launched it.
#include <optional>
#include <ostream>
#include <string>

#include "io/read_error.h"
#include "model/run.h"

namespace prof::analyzer {

// What a load keeps: everything, or (for `info`) only each file's
// ProcessInfo, whose counts and times still cover every record. Both check
// the whole file for corruption alike.
enum class LoadDepth { kEvents, kSummary };

class RunBuilder {
 public:
  explicit RunBuilder(Run& run, LoadDepth depth = LoadDepth::kEvents) : run_(run), depth_(depth) {}

  // Adds one file as one more process. Non-fatal problems (a truncated last
  // chunk) go to `warnings` as one line each; a fatal one is returned, and
  // the Run must then not be used.
  [[nodiscard]] std::optional<ReadError> add_file(const std::string& path, std::ostream& warnings);

  // Places every file on the first file's clock (Process.clock_anchor),
  // then links GPU activities and memory events to their API calls. Call
  // once, after the last add_file.
  void finish();

 private:
  void align_clocks();
  void link_to_launching_calls();

  Run& run_;
  LoadDepth depth_;
};

// Convenience: one RunBuilder over `paths`, then finish().
[[nodiscard]] std::optional<ReadError> load_run(const std::vector<std::string>& paths, Run& run,
                                               std::ostream& warnings, LoadDepth depth = LoadDepth::kEvents);

}  // namespace prof::analyzer
