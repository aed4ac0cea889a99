#include "run_claim.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
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

std::string read_all(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

void remove_folder(const std::string& folder) {
  if (DIR* dir = opendir(folder.c_str())) {
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
  const std::string stat = read_all("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 4 >= stat.size()) return 0;
  return static_cast<uint32_t>(strtoul(stat.c_str() + paren + 4, nullptr, 10));
}

// The run folders of this user in `dir`, by the pid of their first process.
std::map<uint32_t, std::string> run_folders(const std::string& dir) {
  std::map<uint32_t, std::string> folders;
  char prefix[48];
  std::snprintf(prefix, sizeof prefix, "libprof-run-%u-", static_cast<unsigned>(getuid()));
  const size_t prefix_length = strlen(prefix);
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return folders;
  while (const dirent* entry = readdir(listing)) {
    if (strncmp(entry->d_name, prefix, prefix_length) != 0) continue;
    const uint32_t pid = static_cast<uint32_t>(strtoul(entry->d_name + prefix_length, nullptr, 10));
    if (pid != 0) folders[pid] = dir + "/" + entry->d_name;
  }
  closedir(listing);
  return folders;
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

}  // namespace

void RunClaim::join(uint32_t pid) {
  pid_ = pid;
  const char* run = env_value(kRunVariable);
  if (run != nullptr && *run != '\0') {
    const char* first_pid = env_value(kRunPidVariable);
    first_ = first_pid != nullptr && std::to_string(pid) == first_pid;
    struct stat st {};
    if (::stat(run, &st) == 0 && S_ISDIR(st.st_mode)) {
      folder_ = run;
    } else if (std::string(run) != "-") {
      // Left in the environment by an earlier run, or the run's first
      // process is gone: this process cannot claim PROF_OUTPUT, and says so.
      log_error("PROF_RUN=%s names no run in progress; this process writes <name>.%u.pb", run, pid);
    }
    return;
  }
  const std::string dir = runs_dir();
  std::map<uint32_t, std::string> folders = run_folders(dir);
  // No PROF_RUN: this process may still belong to a run its environment
  // lost. bash builds its children's environment from the one it was
  // started with, never from what the agent's constructor set in it, so
  // every process a shell script starts (a pyenv shim: 12 of them for
  // `python3 -c pass`) took itself for a run of its own and said the run's
  // line. A run whose first process is this one (an exec) or an ancestor
  // is this process's run.
  // (No run folder at all, the common case: no /proc reads.)
  uint32_t ancestor = folders.empty() ? 0 : pid;
  for (int generation = 0; generation < 64 && ancestor > 1; ++generation) {
    auto found = folders.find(ancestor);
    if (found != folders.end()) {
      folder_ = found->second;
      first_ = ancestor == pid;
      env_set(kRunVariable, folder_.c_str(), true);
      env_set(kRunPidVariable, std::to_string(ancestor).c_str(), true);
      return;
    }
    ancestor = parent_of(ancestor);
  }
  // A new run. The folders of runs whose first process is gone (a SIGKILL
  // gives no chance to remove one) go now.
  for (const auto& [first_pid, folder] : folders) {
    if (!process_exists(first_pid)) remove_folder(folder);
  }
  first_ = true;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  char name[96];
  std::snprintf(name, sizeof name, "/libprof-run-%u-%u-%lld%09ld", static_cast<unsigned>(getuid()), pid,
                static_cast<long long>(now.tv_sec), now.tv_nsec);
  std::string folder = dir + name;
  if (::mkdir(folder.c_str(), 0700) == 0) folder_ = folder;
  // Set even without a folder: the processes started here are then not the
  // first of the run, and name their files by pid as before.
  env_set(kRunVariable, folder_.empty() ? "-" : folder_.c_str(), true);
  env_set(kRunPidVariable, std::to_string(pid).c_str(), true);
}

bool RunClaim::take(const std::string& path) const {
  const std::string token = folder_ + "/" + claim_name(absolute(path));
  const int fd = ::open(token.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;  // taken, or the run's first process is gone
  ::close(fd);
  return true;
}

std::string RunClaim::claim(const std::string& wanted) {
  if (folder_.empty()) return first_ && !forked_ ? wanted : disambiguate_for_child(wanted, pid_);
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

bool RunClaim::say_once(const char* line) const {
  if (folder_.empty()) return true;
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
  if (folder_.empty()) return false;
  const int fd = ::open((folder_ + "/" + kWrittenFile).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // One write with O_APPEND: lines of several processes never interleave.
  // BYTES \t MISSING \t PATH: the path last, whatever it holds.
  const bool ok =
      write_all(fd, std::to_string(bytes) + "\t" + std::to_string(gpu_records_missing) + "\t" + path + "\n");
  ::close(fd);
  return ok;
}

std::string RunClaim::finish() {
  if (!first_ || folder_.empty()) return {};
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
