#include "on_demand_protocol.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "proc_stat.h"

namespace prof {
namespace {

constexpr std::string_view kStarted = "started ";
constexpr std::string_view kOk = "ok ";
constexpr std::string_view kError = "error ";

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string control_directory() { return "/tmp/libprof-" + std::to_string(getuid()); }

ControlFiles control_files(int64_t pid) {
  const std::string stem = control_directory() + "/" + std::to_string(pid);
  return {stem + ".ctl", stem + ".req", stem + ".done"};
}

std::string control_text(std::string_view version) {
  return "libprof " + std::string(version) + "\n" + std::string(kStarted) + process_start_ticks(0) + "\n";
}

bool control_names_process(std::string_view text, int64_t pid) {
  // The first "started" line is the one that counts.
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (starts_with(line, kStarted)) {
      const std::string started = process_start_ticks(pid);
      return !started.empty() && line.substr(kStarted.size()) == started;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return false;
}

int remove_stale_control_files() {
  const std::string directory = control_directory();
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) return 0;
  int removed = 0;
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    // PID.ctl, and PID.ctl.tmp (PID.req.tmp, PID.done.tmp): a process
    // killed inside write_file_atomically leaves its temporary file.
    const bool temporary = name.size() > 4 && name.substr(name.size() - 4) == ".tmp";
    if (temporary) {
      char* end = nullptr;
      const long long pid = std::strtoll(entry->d_name, &end, 10);
      if (pid > 0 && *end == '.' && !process_exists(pid) &&
          unlinkat(dirfd(dir), entry->d_name, 0) == 0) {
        ++removed;
      }
      continue;
    }
    if (name.size() <= 4 || name.substr(name.size() - 4) != ".ctl") continue;
    char* end = nullptr;
    const long long pid = std::strtoll(entry->d_name, &end, 10);
    if (pid <= 0 || end != entry->d_name + name.size() - 4) continue;
    // Only where no process has the pid: a live one that reused it rewrites
    // its own file when its agent starts (and capture refuses the old one by
    // its start time), and it could be doing so just now.
    if (process_exists(pid)) continue;
    const ControlFiles files = control_files(pid);
    if (unlink(files.control.c_str()) == 0) ++removed;
    unlink(files.request.c_str());
    unlink(files.answer.c_str());
  }
  closedir(dir);
  return removed;
}

std::string request_text(const CaptureRequest& request) {
  const std::string count = request.steps > 0 ? "steps " + std::to_string(request.steps)
                                              : "duration_ms " + std::to_string(request.duration_ms);
  return count + "\noutput " + request.output + "\n";
}

std::optional<CaptureRequest> parse_request(const std::string& text) {
  CaptureRequest request;
  char output[4096] = {};
  long long number = 0;
  if (sscanf(text.c_str(), "steps %lld output %4095[^\n]", &number, output) == 2 && number > 0) {
    request.steps = number;
  } else if (sscanf(text.c_str(), "duration_ms %lld output %4095[^\n]", &number, output) == 2 && number > 0) {
    request.duration_ms = number;
  } else {
    return std::nullopt;
  }
  request.output = output;
  return request;
}

std::string answer_text(const CaptureAnswer& answer) {
  return std::string(answer.ok ? kOk : kError) + answer.detail + "\n";
}

std::optional<CaptureAnswer> parse_answer(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string_view line = text.substr(0, text.find('\n'));
  if (starts_with(line, kOk)) return CaptureAnswer{true, std::string(line.substr(kOk.size()))};
  if (starts_with(line, kError)) return CaptureAnswer{false, std::string(line.substr(kError.size()))};
  return CaptureAnswer{false, std::string(line)};
}

bool write_file_atomically(const std::string& path, std::string_view text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const ssize_t written = ::write(fd, text.data(), text.size());
  const int write_error = written < 0 ? errno : EIO;  // EIO: a short write sets none
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    errno = write_error;
    return false;
  }
  return ::rename(temporary.c_str(), path.c_str()) == 0;
}

std::string read_small_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

}  // namespace prof
