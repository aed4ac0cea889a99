#pragma once
// report's torch table over several files, one file in memory at a time
// (issue 30): each file's Run is loaded, summed into the table's rows by
// their text (KeyAverageRows) and freed before the next, so 64 ranks' files
// cost about one file's memory instead of all of them together, and the
// rows, their order and the totals are those of one Run of every file.
//
// That holds while no file's figures depend on another file. Before any
// file is read, the options decide (file_by_file_applies): steps and
// schedules cut the whole Run, other views read it whole, stack frames are
// named from the whole Run's modules. While reading, each file is checked
// and the first that could differ stops the pass (kNeedsOneRun): a window
// file (windows are made of several files); memory segments (cudaMalloc's
// records) on a side (device, host) where another file has tensor memory
// (a side with tensor memory anywhere is read from tensor memory in every
// process); and a file with record_function scopes but no torch operator
// among files that have operators (GPU work moves to scopes only in a run
// with operators, TorchRanges::any_operator).
#include <ostream>
#include <string>
#include <vector>

#include "cli/report_command.h"
#include "model/run.h"
#include "views/key_averages.h"

namespace prof::analyzer {

// The options allow the table file by file, given the files (expanded).
bool file_by_file_applies(const ReportOptions& options, size_t file_count);

struct FileByFileTable {
  std::vector<KeyAverage> rows;
  std::vector<ProcessInfo> processes;  // each file's, in order: the drop footer's
  bool cuda_memory = false;  // any file recorded device memory: the table's memory columns
  bool cpu_memory = false;
};

enum class FileByFileResult {
  kDone,
  kBadInput,     // a file could not be read: its error (and the warnings before) printed
  kNeedsOneRun,  // a file needs the whole Run: nothing printed, load them as one
};

FileByFileResult key_averages_file_by_file(const std::vector<std::string>& paths, const GroupOptions& group,
                                           FileByFileTable& table, std::ostream& err);

}  // namespace prof::analyzer
