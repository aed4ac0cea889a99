#include "run_claim.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/environment.h"
#include "common/log.h"
#include "config.h"
#include "proc_stat.h"

namespace prof {
namespace {

constexpr char kRunVariable[] = "PROF_RUN";
// The pid of the run's first process: the same process after an exec (a
// shell that execs its last command) is still the first.
constexpr char kRunPidVariable[] = "PROF_RUN_PID";
constexpr char kWrittenFile[] = "written";

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// Claims are files named by a hash of the output path (FNV-1a): any path,
// one short name.
std::string claim_name(const std::string& path) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : path) hash = (hash ^ c) * 1099511628211ull;
  char name[32];
  std::snprintf(name, sizeof name, "claim-%016llx", static_cast<unsigned long long>(hash));
  return name;
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// False when `path` cannot be opened.
bool read_all(const std::string& path, std::string& text) {
  text.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

std::string read_all(const std::string& path) {
  std::string text;
  read_all(path, text);
  return text;
}

void remove_folder(const std::string& folder) {
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr && errno == ENOENT) return;  // never made: the common case
  if (dir != nullptr) {
    std::vector<std::string> names;
    while (const dirent* entry = readdir(dir))
      if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
    closedir(dir);
    for (const std::string& name : names) ::unlink((folder + "/" + name).c_str());
  }
  ::rmdir(folder.c_str());
}

// The parent of `pid` (field 4 of /proc/PID/stat), 0 when unknown.
uint32_t parent_of(uint32_t pid) {
  if (pid == static_cast<uint32_t>(getpid())) return static_cast<uint32_t>(getppid());
  const std::string stat = read_all("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 4 >= stat.size()) return 0;
  return static_cast<uint32_t>(strtoul(stat.c_str() + paren + 4, nullptr, 10));
}

std::string folder_prefix() {
  // Not snprintf: every process's start-up would fault in its pages of libc.
  std::string prefix = "libprof-run-";
  prefix += std::to_string(getuid());
  prefix += '-';
  return prefix;
}

// The folder of the run whose first process is `first_pid`: named by its
// pid and start time, which its descendants can read from /proc too.
std::string folder_of(const std::string& dir, uint32_t first_pid) {
  const std::string ticks = process_start_ticks(first_pid == static_cast<uint32_t>(getpid()) ? 0 : first_pid);
  return dir + "/" + folder_prefix() + std::to_string(first_pid) + "-" + ticks;
}

// A run folder's first process and its start time, from the folder's name;
// false when the name is not a run folder's.
bool parse_folder_name(const std::string& name, uint32_t& pid, std::string& ticks) {
  const std::string prefix = folder_prefix();
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  char* end = nullptr;
  const unsigned long parsed = strtoul(name.c_str() + prefix.size(), &end, 10);
  if (end == name.c_str() + prefix.size() || *end != '-' || end[1] == '\0') return false;
  pid = static_cast<uint32_t>(parsed);
  ticks = end + 1;
  return pid != 0;
}

// Whether the process a run folder's name gives as its first still runs
// (the same start time: not another process that got its pid).
bool first_process_of_folder_runs(const std::string& name) {
  uint32_t pid = 0;
  std::string ticks;
  return parse_folder_name(name, pid, ticks) && process_start_ticks(pid) == ticks;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// What the environment process `pid` started with (/proc/PID/environ: a
// later setenv is not there) says about its run.
struct StartEnvironment {
  bool readable = false;
  bool preloads_agent = false;  // LD_PRELOAD names the agent's library
  std::string run;              // PROF_RUN
  uint32_t run_pid = 0;         // PROF_RUN_PID
};

StartEnvironment start_environment(uint32_t pid, const std::string& agent_library) {
  StartEnvironment found;
  std::string environ_text;
  found.readable = read_all("/proc/" + std::to_string(pid) + "/environ", environ_text);
  if (!found.readable) return found;
  const std::string agent_name = agent_library.empty() ? "libprof.so" : base_name(agent_library);
  for (size_t begin = 0; begin < environ_text.size();) {
    size_t end = environ_text.find('\0', begin);
    if (end == std::string::npos) end = environ_text.size();
    const std::string_view entry(environ_text.data() + begin, end - begin);
    if (entry.substr(0, 9) == "PROF_RUN=") {
      found.run = std::string(entry.substr(9));
    } else if (entry.substr(0, 13) == "PROF_RUN_PID=") {
      found.run_pid = static_cast<uint32_t>(strtoul(std::string(entry.substr(13)).c_str(), nullptr, 10));
    } else if (entry.substr(0, 11) == "LD_PRELOAD=") {
      const std::string list(entry.substr(11));
      for (size_t at = 0; at <= list.size();) {
        size_t stop = list.find_first_of(": ", at);
        if (stop == std::string::npos) stop = list.size();
        const std::string preloaded = list.substr(at, stop - at);
        if (!preloaded.empty() && (preloaded == agent_library || base_name(preloaded) == agent_name)) {
          found.preloads_agent = true;
        }
        at = stop + 1;
      }
    }
    begin = end + 1;
  }
  return found;
}

// Where runs keep their folders: $TMPDIR, else (unset, or unusable:
// TMPDIR=/nonexistent) /tmp, as every process of a run finds the same.
std::string runs_dir() {
  const char* tmp = env_value("TMPDIR");
  if (tmp != nullptr && *tmp != '\0') {
    struct stat st {};
    if (::stat(tmp, &st) == 0 && S_ISDIR(st.st_mode) && access(tmp, W_OK | X_OK) == 0) return tmp;
  }
  return "/tmp";
}

// The folders of runs whose first process is gone (a SIGKILL gives no
// chance to remove one), in `dir`, but `keep`.
void sweep_stale_folders(const std::string& dir, const std::string& keep) {
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return;
  const std::string prefix = folder_prefix();
  std::vector<std::string> stale;
  while (const dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0 || dir + "/" + name == keep) continue;
    if (!first_process_of_folder_runs(name)) stale.push_back(dir + "/" + name);
  }
  closedir(listing);
  for (const std::string& folder : stale) remove_folder(folder);
}

}  // namespace

void RunClaim::join(uint32_t pid, const std::string& agent_library) {
  pid_ = pid;
  const char* run = env_value(kRunVariable);
  if (run != nullptr && *run != '\0') {
    const char* first_pid = env_value(kRunPidVariable);
    first_pid_ = first_pid != nullptr ? static_cast<uint32_t>(strtoul(first_pid, nullptr, 10)) : 0;
    first_ = first_pid_ == pid;
    // "-": the run has no folder. Whether the folder is one of a run in
    // progress is asked when it is first needed (ensure_folder).
    if (std::string(run) != "-") folder_ = run;
    return;
  }
  // No PROF_RUN: this process may still belong to a run its environment
  // lost. bash builds its children's environment from the one it was
  // started with, never from what the agent's constructor set in it, so
  // every process a shell script starts (a pyenv shim: 12 of them for
  // `python3 -c pass`) took itself for a run of its own and said the run's
  // line. The nearest ancestor started with a PROF_RUN names this process's
  // run; ancestors started with the agent preloaded but no PROF_RUN are of
  // this run too, the topmost of them its first process. (A parent that
  // does not preload the agent, the common case: one /proc read.)
  uint32_t top = pid;
  uint32_t ancestor = parent_of(pid);
  for (int generation = 0; generation < 64 && ancestor > 1; ++generation) {
    const StartEnvironment started = start_environment(ancestor, agent_library);
    if (!started.run.empty()) {
      if (started.run != "-") folder_ = started.run;
      first_pid_ = started.run_pid;
      first_ = false;
      env_set(kRunVariable, started.run.c_str(), true);
      env_set(kRunPidVariable, std::to_string(first_pid_).c_str(), true);
      return;
    }
    if (!started.preloads_agent) break;
    top = ancestor;
    ancestor = parent_of(ancestor);
  }
  first_pid_ = top;
  first_ = top == pid;
  folder_ = folder_of(runs_dir(), top);
  env_set(kRunVariable, folder_.c_str(), true);
  env_set(kRunPidVariable, std::to_string(top).c_str(), true);
}

bool RunClaim::first_process_runs() const {
  uint32_t pid = 0;
  std::string ticks;
  return parse_folder_name(base_name(folder_), pid, ticks) && pid == first_pid_ &&
         first_process_of_folder_runs(base_name(folder_));
}

bool RunClaim::ensure_folder() {
  if (folder_.empty()) return false;
  if (folder_made_) return true;
  struct stat st {};
  if (::stat(folder_.c_str(), &st) != 0) {
    // A PROF_RUN left in the environment by an earlier run, or the run's
    // first process is gone: this process cannot claim PROF_OUTPUT, and
    // says so. (The first process itself may make its folder any time.)
    if (!first_ && !first_process_runs()) {
      log_error("PROF_RUN=%s names no run in progress; this process writes <name>.%u.pb", folder_.c_str(), pid_);
      folder_.clear();
      return false;
    }
    if (::mkdir(folder_.c_str(), 0700) != 0 && errno != EEXIST) {
      folder_.clear();  // every process on its own, as without a $TMPDIR
      return false;
    }
    const size_t slash = folder_.rfind('/');
    sweep_stale_folders(slash == std::string::npos ? "." : folder_.substr(0, slash), folder_);
  } else if (!S_ISDIR(st.st_mode)) {
    folder_.clear();
    return false;
  }
  folder_made_ = true;
  return true;
}

bool RunClaim::take(const std::string& path) const {
  const std::string token = folder_ + "/" + claim_name(absolute(path));
  const int fd = ::open(token.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;  // taken, or the run's first process is gone
  ::close(fd);
  return true;
}

std::string RunClaim::claim(const std::string& wanted) {
  if (!ensure_folder()) return first_ && !forked_ ? wanted : disambiguate_for_child(wanted, pid_);
  if (!forked_ && take(wanted)) return wanted;
  // <name>.<pid>.pb; a process that execs itself has one pid for several
  // images, each with a file of its own: <name>.<pid>.2.pb, .3, ...
  const std::string own = disambiguate_for_child(wanted, pid_);
  if (take(own)) return own;
  for (uint32_t image = 2; image < 10'000 && errno == EEXIST; ++image) {
    const std::string next = disambiguate_for_child(own, image);
    if (take(next)) return next;
  }
  return own;  // no claim can be made (no descriptor left): the name of old
}

bool RunClaim::say_once(const char* line) {
  if (!ensure_folder()) return true;
  uint64_t hash = 1469598103934665603ull;
  for (const char* c = line; *c != '\0'; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  char name[40];
  std::snprintf(name, sizeof name, "/said-%016llx", static_cast<unsigned long long>(hash));
  const int fd = ::open((folder_ + name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno != EEXIST;  // said already; any other failure: say it
  ::close(fd);
  return true;
}

std::string RunClaim::missing_gpu_records(uint32_t gpu_records_missing) {
  if (gpu_records_missing == 0) return {};
  return "; " + std::to_string(gpu_records_missing) +
         (gpu_records_missing == 1 ? " GPU record never came" : " GPU records never came") +
         " (still running at exit)";
}

std::string RunClaim::describe_file(const std::string& path, uint64_t bytes, uint32_t gpu_records_missing) {
  return path + " (" + std::to_string(bytes) + " bytes" + missing_gpu_records(gpu_records_missing) + ")";
}

bool RunClaim::note_written(const std::string& path, uint64_t bytes, uint32_t gpu_records_missing) {
  if (folder_.empty() || !folder_made_) return false;
  const int fd = ::open((folder_ + "/" + kWrittenFile).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // One write with O_APPEND: lines of several processes never interleave.
  // BYTES \t MISSING \t PATH: the path last, whatever it holds.
  const bool ok =
      write_all(fd, std::to_string(bytes) + "\t" + std::to_string(gpu_records_missing) + "\t" + path + "\n");
  ::close(fd);
  // A folder this process made after the first process had ended (it ran
  // when this one looked) is read by nobody: this process says it itself.
  return ok && (first_ || process_exists(first_pid_));
}

std::string RunClaim::finish() {
  if (!first_ || folder_.empty()) return {};
  // Most runs (a shell pipeline under LD_PRELOAD) never make their folder:
  // one failed lookup says so, where reading its notes and then listing it
  // took two (each a directory search and a negative dentry, issue #30).
  const int folder = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0 && errno == ENOENT) {
    folder_.clear();
    return kNothingWritten;
  }
  if (folder >= 0) ::close(folder);
  const std::string written = read_all(folder_ + "/" + kWrittenFile);
  remove_folder(folder_);
  folder_.clear();
  std::vector<std::string> files;
  for (size_t begin = 0; begin < written.size();) {
    size_t end = written.find('\n', begin);
    if (end == std::string::npos) end = written.size();
    const std::string line = written.substr(begin, end - begin);
    const size_t tab = line.find('\t');
    const size_t second = tab == std::string::npos ? tab : line.find('\t', tab + 1);
    if (second != std::string::npos) {
      files.push_back(describe_file(line.substr(second + 1), std::strtoull(line.substr(0, tab).c_str(), nullptr, 10),
                                    static_cast<uint32_t>(std::strtoul(line.c_str() + tab + 1, nullptr, 10))));
    }
    begin = end + 1;
  }
  if (files.empty()) return kNothingWritten;
  if (files.size() == 1) return "wrote " + files[0];
  std::string line = "wrote " + std::to_string(files.size()) + " files: ";
  for (size_t i = 0; i < files.size(); ++i) line += (i ? ", " : "") + files[i];
  return line;
}

}  // namespace prof
