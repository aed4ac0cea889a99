#include "symbols/symbolizing_frame_namer.h"

#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

extern char** environ;

namespace prof::analyzer {
namespace {

const Module* module_of(const Run& run, const Frame& frame) {
  if (frame.module < 0 || static_cast<size_t>(frame.module) >= run.modules.size()) return nullptr;
  return &run.modules[static_cast<size_t>(frame.module)];
}

// Reads all of `fd` until EOF.
std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

// Keeps the last two path components: "src/train.cpp:42" says enough and
// keeps flamegraph frames short.
std::string short_location(const std::string& location) {
  const size_t colon = location.rfind(':');
  if (colon == std::string::npos) return location;
  size_t slash = location.rfind('/', colon);
  if (slash != std::string::npos && slash > 0) {
    const size_t before = location.rfind('/', slash - 1);
    if (before != std::string::npos) return location.substr(before + 1);
  }
  return location;
}

}  // namespace

std::string SymbolizingFrameNamer::name(const Run& run, const Frame& frame) const {
  const Module* module = frame.kind == FrameKind::kNative ? module_of(run, frame) : nullptr;
  if (!module || frame.address <= module->bias) return fallback_.name(run, frame);
  std::pair<std::string, uint64_t> key{module->path, file_address_of_call(frame.address, module->bias)};
  if (auto it = names_.find(key); it != names_.end()) return it->second;
  std::string out;
  if (auto symbol = symbolizer_.lookup(module->path, module->build_id, key.second)) out = symbol->name;
  if (out.empty()) out = fallback_.name(run, frame);
  if (auto it = lines_.find(key); it != lines_.end() && !it->second.empty()) out += " (" + it->second + ")";
  names_.emplace(std::move(key), out);
  return out;
}

bool SymbolizingFrameNamer::prefetch_lines(const Run& run) {
  std::map<int64_t, std::set<uint64_t>> per_module;
  for (const Frame& f : run.frames)
    if (const Module* m = f.kind == FrameKind::kNative ? module_of(run, f) : nullptr; m && f.address > m->bias)
      per_module[f.module].insert(file_address_of_call(f.address, m->bias));
  bool ran = true;
  for (const auto& [module, address_set] : per_module) {
    const std::string& path = run.modules[static_cast<size_t>(module)].path;
    // A module replaced since the capture would give wrong lines.
    if (symbolizer_.status(path, run.modules[static_cast<size_t>(module)].build_id) != ModuleStatus::ok) continue;
    const std::vector<uint64_t> addresses(address_set.begin(), address_set.end());
    const std::vector<std::string> lines = addr2line_lines(path, addresses);
    if (lines.size() != addresses.size()) {
      ran = false;
      continue;
    }
    for (size_t i = 0; i < addresses.size(); ++i) lines_[{path, addresses[i]}] = lines[i];
  }
  names_.clear();
  return ran;
}

std::vector<std::string> addr2line_lines(const std::string& module, const std::vector<uint64_t>& file_addresses) {
  std::vector<std::string> result;
  // Batches keep the command line short; one process per batch.
  constexpr size_t kBatch = 512;
  for (size_t begin = 0; begin < file_addresses.size(); begin += kBatch) {
    const size_t end = std::min(file_addresses.size(), begin + kBatch);
    std::vector<std::string> args = {"addr2line", "-e", module};
    for (size_t i = begin; i < end; ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(file_addresses[i]));
      args.emplace_back(buf);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (spawned != 0) {
      ::close(pipe_fds[0]);
      return {};
    }
    const std::string text = read_all(pipe_fds[0]);
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
    size_t pos = 0;
    for (size_t i = begin; i < end; ++i) {
      const size_t newline = text.find('\n', pos);
      if (newline == std::string::npos) return {};
      std::string line = text.substr(pos, newline - pos);
      pos = newline + 1;
      // "file:line (discriminator N)" -> "file:line"
      if (const size_t paren = line.find(" ("); paren != std::string::npos) line.resize(paren);
      if (line.rfind("??", 0) == 0 || line.ends_with(":?") || line.ends_with(":0")) line.clear();
      result.push_back(short_location(line));
    }
  }
  return result;
}

}  // namespace prof::analyzer
