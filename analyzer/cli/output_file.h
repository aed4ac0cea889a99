#pragma once
// Where a command's one output goes: `-o PATH` to a file, `-o -` to stdout.
// A file written is said on stderr ("profanalyze: wrote fg.svg (41,213
// bytes)"), so that `profanalyze flamegraph run.pb > fg.svg`, which leaves
// stdout empty, tells where the graph went; a file not written in full is
// an error (a full disk, a missing folder), never a silent success.
#include <functional>
#include <ostream>
#include <string>

namespace prof::analyzer {

// Runs `write` into the file `path` ("-": into `out`, whose failures
// finish_output reports). The exit code: kExitOk, or kExitBadOutput after
// one line on `err` saying why the file could not be written.
int write_output(const std::string& path, const std::function<void(std::ostream&)>& write, std::ostream& out,
                 std::ostream& err);

}  // namespace prof::analyzer
