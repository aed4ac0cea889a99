// The agent's lifecycle: start in the preload constructor, stop at exit, stay
// out of forked children. Nothing here may break the app: every failure turns
// recording off with one "libprof:" line and lets the app run on.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "capture/capture_range.h"
#include "capture/cuda_capture.h"
#include "capture/nvtx_capture.h"
#include "common/clock.h"
#include "common/log.h"
#include "config.h"
#include "record/recorder.h"
#include "record/writer.h"
#include "signals.h"

// One agent per process even when it is loaded twice under different paths
// (LD_PRELOAD and CUDA_INJECTION64_PATH naming different copies): the first
// copy in the global scope claims this symbol.
extern "C" [[gnu::visibility("default")]] const char libprof_agent_marker = 1;

namespace prof {
namespace {

// Set by the first agent of a process tree: a process that finds another
// pid here was started by a profiled process (see disambiguate_for_child).
constexpr char kAgentPidVariable[] = "PROF_AGENT_PID";

enum class Phase { off, recording, finished };
std::atomic<Phase> g_phase{Phase::off};
// Deliberately leaked: app threads may still record while the process exits,
// after static destructors would have run.
Recorder* g_recorder = nullptr;
Writer* g_writer = nullptr;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string own_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_library_path), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  return info.dli_fname;
}

ProcessInfo describe_process(const ProcessIdentity& identity, const AgentConfig& config) {
  ProcessInfo process;
  process.pid = identity.pid;
  process.parent_pid = static_cast<uint32_t>(getppid());
  process.hostname = identity.hostname;
  process.rank = identity.rank;
  process.world_size = identity.world_size;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) process.executable.assign(exe, static_cast<size_t>(n));
  const std::string cmdline = read_file("/proc/self/cmdline");
  for (size_t begin = 0; begin < cmdline.size();) {
    size_t end = cmdline.find('\0', begin);
    if (end == std::string::npos) end = cmdline.size();
    process.command_line.emplace_back(cmdline, begin, end - begin);
    begin = end + 1;
  }
  process.clock_anchor.realtime_ns = realtime_ns();
  process.clock_anchor.monotonic_ns = monotonic_ns();
  process.start_ns = process.clock_anchor.monotonic_ns;
  process.options = {
      {"output", config.output_path},
      {"log", config.log_level == LogLevel::quiet ? "quiet"
              : config.log_level == LogLevel::debug ? "debug" : "info"},
      {"buffer_kb", std::to_string(config.thread_buffer_bytes >> 10)},
      {"flush_ms", std::to_string(config.flush_interval_ms)},
      {"nvtx", "on"},
      {"api", config.cuda.all_api_calls ? "all" : "default"},
      {"stacks", config.cuda.stacks == StackMode::native ? "native" : "none"},
      {"stack_depth", std::to_string(config.cuda.stack_depth)},
      {"capture", config.cuda.range == CaptureRange::all ? "all" : "cudaProfilerApi"},
  };
  return process;
}

void finish(EndReason reason) {
  Phase expected = Phase::recording;
  if (!g_phase.compare_exchange_strong(expected, Phase::finished)) return;
  g_writer->wait_until_written(g_writer->request_flush(true, reason), 10'000);
  g_recorder->stop_accepting();
  g_writer->join();
  if (g_writer->wrote_file()) {
    log_info("wrote %s (%llu bytes)", g_writer->path().c_str(),
             static_cast<unsigned long long>(g_writer->bytes_written()));
  } else {
    log_info("nothing recorded; no file written");
  }
}

void on_exit_handler() { finish(EndReason::exit); }

// A pointer, like the others: a global with a constructor could be
// initialised after on_load ran (the order of constructor functions and C++
// initialisers within one library is unspecified) and wipe what it set.
const AgentConfig* g_config = nullptr;

void start_cuda() {
  if (g_phase.load() != Phase::recording) return;
  start_cuda_capture(*g_recorder, *g_writer, g_config->cuda);
}

// Whether this thread's fork() holds the writer: the phase may change
// between the prepare and the parent/child handlers (another thread exits).
thread_local bool t_fork_holds_writer = false;

void on_fork_prepare() {
  if (g_phase.load() != Phase::recording) return;
  g_writer->hold_for_fork();
  t_fork_holds_writer = true;
}

void release_writer_after_fork() {
  if (!t_fork_holds_writer) return;
  t_fork_holds_writer = false;
  g_writer->release_after_fork();
}

void on_fork_parent() { release_writer_after_fork(); }

// A forked child has only the thread that called fork: no writer thread, and
// the registry's mutex may be held by a thread that no longer exists. It
// leaks the parent's state, records nothing and never touches the parent's
// file. (A child that execs starts a fresh agent and writes its own file.)
void on_fork_child() {
  release_writer_after_fork();  // this thread took it; in the child the writer is gone
  if (g_phase.load() != Phase::recording) return;
  g_phase.store(Phase::off);
  enable_nvtx_capture(nullptr);
  // CUPTI callbacks may still fire in the child: a thread that has no buffer
  // yet must not register one (the registry's mutex may be held forever).
  g_recorder->stop_accepting();
}

void start() {
  const ProcessIdentity identity = read_process_identity();
  AgentConfig config = read_config(identity);

  const char* ancestor = getenv(kAgentPidVariable);
  const std::string own_pid = std::to_string(identity.pid);
  const char* output = getenv("PROF_OUTPUT");
  const bool template_has_pid = output != nullptr && std::string(output).find("%p") != std::string::npos;
  if (ancestor != nullptr && own_pid != ancestor && !template_has_pid) {
    config.output_path = disambiguate_for_child(config.output_path, identity.pid);
  }
  setenv(kAgentPidVariable, own_pid.c_str(), 1);

  // NVTX3 reads this on its first call in each module; pointing it at
  // ourselves is how NVTX ranges reach us. A tool the user set wins.
  // The CUDA driver reads CUDA_INJECTION64_PATH in cuInit and calls the
  // library's InitializeInjection: CUDA capture starts when CUDA does.
  const std::string self = own_library_path();
  if (!self.empty()) {
    setenv("NVTX_INJECTION64_PATH", self.c_str(), 0);
    setenv("CUDA_INJECTION64_PATH", self.c_str(), 0);
  }
  const char* injection = getenv("CUDA_INJECTION64_PATH");
  if (injection != nullptr && !self.empty() && self != injection) {
    log_error("CUDA_INJECTION64_PATH names another tool (%s); CUDA is not recorded", injection);
  }
  config.cuda.on_cuda_ready = [] { atexit(on_exit_handler); };
  if (config.cuda.range == CaptureRange::cuda_profiler_api) set_capture_range_open(false);
  g_config = new AgentConfig(config);

  g_recorder = new Recorder(config.thread_buffer_bytes);
  g_writer = new Writer(*g_recorder, config, describe_process(identity, config));
  if (!g_writer->prepare()) return;  // already said why; the app runs unrecorded
  g_writer->start();
  g_phase.store(Phase::recording);
  enable_nvtx_capture(g_recorder);

  atexit(on_exit_handler);
  pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
  install_signal_handlers(g_writer);
  log_info("recording to %s", config.output_path.c_str());
}

// Whether `address` lies in this copy of the library. Comparing with
// &libprof_agent_marker would not do: an exported symbol's address, taken
// inside the library, resolves through the GOT to the first copy's.
bool in_this_copy(const void* address) {
  Dl_info theirs{}, ours{};
  return dladdr(address, &theirs) != 0 &&
         dladdr(reinterpret_cast<const void*>(&own_library_path), &ours) != 0 &&
         theirs.dli_fbase == ours.dli_fbase;
}

bool another_agent_is_active() {
  const void* first = dlsym(RTLD_DEFAULT, "libprof_agent_marker");
  return first != nullptr && !in_this_copy(first);
}

[[gnu::constructor]] void on_load() {
  if (another_agent_is_active()) return;
  start();
}

// The first copy of the agent in the process, which does the work.
using InjectionEntry = int (*)();
InjectionEntry first_agent_entry() {
  return reinterpret_cast<InjectionEntry>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
}

// A fallback for exits that skip atexit handlers registered after this
// library's constructor (the handler list is per object under dlclose).
[[gnu::destructor]] void on_unload() { finish(EndReason::exit); }

}  // namespace
}  // namespace prof

// The CUDA driver's injection entry (CUDA_INJECTION64_PATH), called from
// cuInit. Returns 1: a 0 would make the driver report an error to the app.
extern "C" [[gnu::visibility("default")]] int InitializeInjection() {
  using namespace prof;
  if (another_agent_is_active()) {
    // This copy stays inert; the driver found it under another path than
    // the preloaded one, so forward to the copy that records.
    InjectionEntry first = first_agent_entry();
    if (first != nullptr && !in_this_copy(reinterpret_cast<const void*>(first))) return first();
    return 1;
  }
  start_cuda();
  // Also registered here for programs that only use the driver API (no
  // runtime call would trigger on_cuda_ready early enough otherwise).
  if (g_phase.load() == Phase::recording) atexit(on_exit_handler);
  return 1;
}
