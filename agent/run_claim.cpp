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

// How a file says it has no more: a read of nothing, or (/proc/PID/environ,
// whose reads return less than asked only at its end: the kernel's
// environ_read copies until the count is met or the environment ends) a
// read of less than asked, which spares every process that starts a run a
// system call.
enum class FileEnd { empty_read, short_read };

// False when `path` cannot be opened.
bool read_all(const std::string& path, std::string& text, FileEnd end = FileEnd::empty_read) {
  text.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (end == FileEnd::short_read && static_cast<size_t>(n) < sizeof buf) break;
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

// The run whose first process is `first_pid`, named by that pid alone: its
// folder's name is this and "-<start ticks>" (folder_of).
std::string run_name_of(const std::string& dir, uint32_t first_pid) {
  return dir + "/" + folder_prefix() + std::to_string(first_pid);
}

// The folder of the run named `run_name` (run_name_of): named by its first
// process's pid and start time, which its descendants read from /proc too
// (not a later process that got the pid: a run folder left by a SIGKILL is
// never taken for a new run's). "" when that process is another and gone.
std::string folder_of(const std::string& run_name, uint32_t first_pid) {
  const bool self = first_pid == static_cast<uint32_t>(getpid());
  const std::string ticks = process_start_ticks(self ? 0 : first_pid);
  // Its own run's folder a process names even without /proc (no ticks).
  return ticks.empty() && !self ? std::string() : run_name + "-" + ticks;
}

// Whether `name` is a run's name by its first process alone
// (libprof-run-<uid>-<pid>, whatever the uid: a process of the run may run
// as another user), and that pid. Digits read here, not by strtoul: in a
// process that never records, strtoul and its character class table were
// two pages of libc's it touched for this alone.
bool parse_run_name(const std::string& name, uint32_t& pid) {
  constexpr char kStem[] = "libprof-run-";
  if (name.compare(0, sizeof kStem - 1, kStem) != 0) return false;
  // The value of the digits from `at` (at least one), and where they end.
  const auto number_at = [&name](size_t& at, uint64_t& value) {
    const size_t begin = at;
    value = 0;
    for (; at < name.size() && name[at] >= '0' && name[at] <= '9' && at - begin < 10; ++at) {
      value = value * 10 + static_cast<uint64_t>(name[at] - '0');
    }
    return at > begin;
  };
  size_t at = sizeof kStem - 1;
  uint64_t uid = 0, first_pid = 0;
  if (!number_at(at, uid) || at == name.size() || name[at] != '-') return false;
  ++at;
  if (!number_at(at, first_pid) || at != name.size() || first_pid == 0 || first_pid > UINT32_MAX) return false;
  pid = static_cast<uint32_t>(first_pid);
  return true;
}

// A run folder's first process and its start time, from the folder's name
// (`libprof-run-<uid>-<pid>-<ticks>`: a run's name and the start time);
// false when the name is not this user's run folder's.
bool parse_folder_name(const std::string& name, uint32_t& pid, std::string& ticks) {
  const size_t last_dash = name.rfind('-');
  if (last_dash == std::string::npos || last_dash + 1 == name.size()) return false;
  const std::string prefix = folder_prefix();
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (!parse_run_name(name.substr(0, last_dash), pid)) return false;
  ticks = name.substr(last_dash + 1);
  return true;
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
  found.readable = read_all("/proc/" + std::to_string(pid) + "/environ", environ_text, FileEnd::short_read);
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
// chance to remove one), in `dir`, but `keep`; and the marks of runs whose
// first process's pid no process has. (A mark whose pid a later process
// got stays until that one is gone: the mark may be that process's run's,
// whose start time nothing here knows.)
void sweep_stale_folders(const std::string& dir, const std::string& keep) {
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return;
  const std::string prefix = folder_prefix();
  std::vector<std::string> stale_folders, stale_marks;
  while (const dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0 || dir + "/" + name == keep) continue;
    uint32_t pid = 0;
    if (parse_run_name(name, pid)) {
      if (!process_exists(pid)) stale_marks.push_back(dir + "/" + name);
    } else if (!first_process_of_folder_runs(name)) {
      stale_folders.push_back(dir + "/" + name);
    }
  }
  closedir(listing);
  for (const std::string& folder : stale_folders) remove_folder(folder);
  for (const std::string& mark : stale_marks) ::unlink(mark.c_str());
}

}  // namespace

void RunClaim::name_run(const std::string& run) {
  folder_.clear();
  mark_.clear();
  if (run == "-") return;  // the run has no folder
  uint32_t pid = 0;
  if (parse_run_name(base_name(run), pid)) {
    mark_ = run;  // the folder's name waits for the first process's start time
  } else {
    folder_ = run;
  }
}

void RunClaim::join(uint32_t pid, const std::string& agent_library) {
  pid_ = pid;
  const char* run = env_value(kRunVariable);
  if (run != nullptr && *run != '\0') {
    const char* first_pid = env_value(kRunPidVariable);
    first_pid_ = first_pid != nullptr ? static_cast<uint32_t>(strtoul(first_pid, nullptr, 10)) : 0;
    first_ = first_pid_ == pid;
    // Whether the folder is one of a run in progress is asked when it is
    // first needed (ensure_folder).
    name_run(run);
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
      name_run(started.run);
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
  // Named by the first process's pid alone: its start time, which names the
  // folder, is read from /proc (11.6 us on this VM, the dearest system call
  // of a process that never records, issue #30) only by a process that
  // needs the folder, or by the first one at its exit when the run's mark
  // says a folder may have been made.
  const std::string name = run_name_of(runs_dir(), top);
  name_run(name);
  env_set(kRunVariable, name.c_str(), true);
  env_set(kRunPidVariable, std::to_string(top).c_str(), true);
}

void RunClaim::remove_mark() {
  // This process's pid names the mark: no other run in progress has it.
  if (!mark_.empty()) ::unlink(mark_.c_str());
  mark_.clear();
  folder_.clear();
}

bool RunClaim::first_process_runs() const {
  uint32_t pid = 0;
  std::string ticks;
  return parse_folder_name(base_name(folder_), pid, ticks) && pid == first_pid_ &&
         first_process_of_folder_runs(base_name(folder_));
}

bool RunClaim::ensure_folder() {
  if (folder_made_) return true;
  bool first_runs = false;  // known: its start time was read just now
  if (folder_.empty() && !mark_.empty()) {
    folder_ = folder_of(mark_, first_pid_);
    if (folder_.empty()) {  // the run's first process is gone
      log_error("PROF_RUN=%s names no run in progress; this process writes <name>.%u.pb", mark_.c_str(), pid_);
      mark_.clear();
      return false;
    }
    first_runs = true;
  }
  if (folder_.empty()) return false;
  struct stat st {};
  if (::stat(folder_.c_str(), &st) != 0) {
    // A PROF_RUN left in the environment by an earlier run, or the run's
    // first process is gone: this process cannot claim PROF_OUTPUT, and
    // says so. (The first process itself may make its folder any time.)
    if (!first_ && !first_runs && !first_process_runs()) {
      log_error("PROF_RUN=%s names no run in progress; this process writes <name>.%u.pb", folder_.c_str(), pid_);
      folder_.clear();
      mark_.clear();
      return false;
    }
    // The mark before the folder: a first process that finds no mark at its
    // exit knows that no folder was made before (finish). A symbolic link,
    // which needs no descriptor (ulimit -n 5), to the folder's name; one a
    // SIGKILLed run of the same pid left says "look" all the same.
    const bool marked = mark_.empty() || ::symlink(base_name(folder_).c_str(), mark_.c_str()) == 0 || errno == EEXIST;
    if (!marked || (::mkdir(folder_.c_str(), 0700) != 0 && errno != EEXIST)) {
      folder_.clear();  // every process on its own, as without a $TMPDIR
      mark_.clear();
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
  if (!first_ || (folder_.empty() && mark_.empty())) return {};
  // Most runs (a shell pipeline under LD_PRELOAD) never make their folder:
  // one failed lookup says so, where reading its notes and then listing it
  // took two (each a directory search and a negative dentry, issue #30).
  // For a run named by this process's pid alone, the lookup is of the mark
  // (not followed: one of an earlier process of this pid may name another
  // folder), so that the folder's name (this process's start time from
  // /proc) is read only when a folder may have been made.
  struct stat st {};
  if (folder_.empty() && ::lstat(mark_.c_str(), &st) != 0 && errno == ENOENT) {
    mark_.clear();
    return kNothingWritten;
  }
  if (folder_.empty()) folder_ = folder_of(mark_, first_pid_);
  const int folder = folder_.empty() ? -1 : ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0 && (folder_.empty() || errno == ENOENT)) {
    remove_mark();
    return kNothingWritten;
  }
  if (folder >= 0) ::close(folder);
  const std::string written = read_all(folder_ + "/" + kWrittenFile);
  remove_folder(folder_);
  remove_mark();
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
