#include "run_claim.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "config.h"

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

}  // namespace

void RunClaim::join(uint32_t pid) {
  pid_ = pid;
  const char* run = getenv(kRunVariable);
  if (run != nullptr && *run != '\0') {
    const char* first_pid = getenv(kRunPidVariable);
    first_ = first_pid != nullptr && std::to_string(pid) == first_pid;
    struct stat st {};
    if (::stat(run, &st) == 0 && S_ISDIR(st.st_mode)) folder_ = run;
    return;
  }
  first_ = true;
  const char* tmp = getenv("TMPDIR");
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  char name[96];
  std::snprintf(name, sizeof name, "/libprof-run-%u-%u-%lld%09ld", static_cast<unsigned>(getuid()), pid,
                static_cast<long long>(now.tv_sec), now.tv_nsec);
  std::string folder = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + name;
  if (::mkdir(folder.c_str(), 0700) == 0) folder_ = folder;
  // Set even without a folder: the processes started here are then not the
  // first of the run, and name their files by pid as before.
  setenv(kRunVariable, folder_.empty() ? "-" : folder_.c_str(), 1);
  setenv(kRunPidVariable, std::to_string(pid).c_str(), 1);
}

std::string RunClaim::claim(const std::string& wanted) {
  if (forked_) return disambiguate_for_child(wanted, pid_);
  if (folder_.empty()) return first_ ? wanted : disambiguate_for_child(wanted, pid_);
  const std::string token = folder_ + "/" + claim_name(absolute(wanted));
  const int fd = ::open(token.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return disambiguate_for_child(wanted, pid_);  // taken, or the run's first process is gone
  ::close(fd);
  return wanted;
}

bool RunClaim::note_written(const std::string& path, uint64_t bytes) {
  if (folder_.empty()) return false;
  const int fd = ::open((folder_ + "/" + kWrittenFile).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // One write with O_APPEND: lines of several processes never interleave.
  const bool ok = write_all(fd, std::to_string(bytes) + "\t" + path + "\n");
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
    if (tab != std::string::npos) files.push_back(line.substr(tab + 1) + " (" + line.substr(0, tab) + " bytes)");
    begin = end + 1;
  }
  if (files.empty()) return "nothing recorded; no file written";
  if (files.size() == 1) return "wrote " + files[0];
  std::string line = "wrote " + std::to_string(files.size()) + " files: ";
  for (size_t i = 0; i < files.size(); ++i) line += (i ? ", " : "") + files[i];
  return line;
}

}  // namespace prof
