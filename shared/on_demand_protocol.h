#pragma once
// The files through which `profanalyze capture PID` asks a running process
// for a capture, spelled once for both sides. They live in a per-user
// directory, /tmp/libprof-<uid>/ (0700, made by the agent):
//   PID.ctl   made by the agent at start, removed at exit: "an agent runs
//             here", with its process's start time (proc_stat.h), so that a
//             file left by a killed process whose pid was reused is not taken
//             for the agent's
//   PID.req   the request, written by profanalyze: "steps N" or
//             "duration_ms N", then "output PATH"
//   PID.done  the answer, written by the agent when the file is complete:
//             "ok PATH" or "error WHY"
// Every file is written whole under another name and renamed into place, so
// neither side ever reads half of one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace prof {

// /tmp/libprof-<uid>.
std::string control_directory();

// The three files of process `pid`.
struct ControlFiles {
  std::string control;  // PID.ctl
  std::string request;  // PID.req
  std::string answer;   // PID.done
};
ControlFiles control_files(int64_t pid);

// ---- PID.ctl ----
// What this process's agent writes: its version and this process's start time.
std::string control_text(std::string_view version);
// Whether `text` (a PID.ctl) was written by the process `pid` now running:
// false when it names no start time, another one (a process that ended
// without removing it), or there is no such process.
bool control_names_process(std::string_view text, int64_t pid);
// Removes the PID.ctl files (and their .req/.done) in control_directory()
// of pids no process has: left by processes killed before they could remove
// them. Returns how many it removed.
int remove_stale_control_files();

// ---- PID.req ----
struct CaptureRequest {
  int64_t steps = 0;        // > 0: the next N whole steps
  int64_t duration_ms = 0;  // else (> 0): this long from when the agent reads it
  std::string output;       // the capture file (absolute: the agent has its own cwd)
};
std::string request_text(const CaptureRequest& request);
// nullopt when `text` is no request: neither count given and > 0, or no output.
std::optional<CaptureRequest> parse_request(const std::string& text);

// ---- PID.done ----
struct CaptureAnswer {
  bool ok = false;
  std::string detail;  // ok: the capture file; else why not
};
std::string answer_text(const CaptureAnswer& answer);
// nullopt while `text` holds no line yet; a line that is neither "ok ..."
// nor "error ..." is an error whose detail is the line itself.
std::optional<CaptureAnswer> parse_answer(std::string_view text);

// ---- the files themselves (open/read/rename, no iostreams: the agent runs
// inside the app) ----
// Writes PATH.tmp and renames it to `path`. False, with errno set, when it
// cannot.
bool write_file_atomically(const std::string& path, std::string_view text);
// The whole file; "" when it cannot be read.
std::string read_small_file(const std::string& path);

}  // namespace prof
