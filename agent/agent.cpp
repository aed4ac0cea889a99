// The agent's lifecycle: start in the preload constructor, stop at exit, stay
// out of forked children. Nothing here may break the app: every failure turns
// recording off with one "libprof:" line and lets the app run on.
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "agent_state.h"
#include "capture/capture_range.h"
#include "capture/cuda_capture.h"
#include "capture/hooks/driver_hooks.h"
#include "capture/hooks/hooked_call.h"
#include "capture/nvtx_capture.h"
#include "common/clock.h"
#include "common/host_clock.h"
#include "common/environment.h"
#include "common/loaded_object.h"
#include "common/log.h"
#include "common/proc_self.h"
#include "config.h"
#include "glibc_2_17_symbols.h"
#include "process_exit.h"
#include "python_bootstrap.h"
#include "run_claim.h"
#include "control/capture_control.h"
#include "control/on_demand.h"
#include "record/recorder.h"
#include "record/writer.h"
#include "signals.h"

// One agent per process even when it is loaded twice under different paths
// (LD_PRELOAD and CUDA_INJECTION64_PATH naming different copies): the first
// copy in the global scope claims this symbol.
extern "C" [[gnu::visibility("default")]] const char libprof_agent_marker = 1;
// This copy's own marker and injection entry, under hidden aliases: their
// exported names, taken inside the library, resolve through the GOT to the
// first copy's. Comparing with these tells the copies apart without a
// dladdr, which scans the library's symbols (issue #30: each costs a
// process under LD_PRELOAD some 5 us).
extern "C" {
[[gnu::visibility("hidden"), gnu::alias("libprof_agent_marker")]] extern const char libprof_agent_marker_here;
}
extern "C" [[gnu::visibility("default")]] int InitializeInjection();
extern "C" [[gnu::visibility("hidden"), gnu::alias("InitializeInjection")]] int initialize_injection_here();

namespace prof {
namespace {


// This library's path as the loader named it; "" when the loader cannot
// say. Looked up once, first by the preload constructor, before any other
// thread can ask; leaked, as it is read at exit and in forked children.
const std::string* g_own_library_path = nullptr;

const std::string& own_library_path() {
  if (g_own_library_path == nullptr) {
    const char* name = loaded_object_name(reinterpret_cast<const void*>(&own_library_path));
    g_own_library_path = new std::string(name != nullptr ? name : "");
  }
  return *g_own_library_path;
}

// What the process description takes from the agent's start: who the
// process is, its parent (which may be gone by the first record), the clock
// anchor, and the window variables as they were when the configuration was
// read. The options that follow from the configuration are added when the
// writer is made (add_configured_options).
file::Process describe_process_at_start(const ProcessIdentity& identity) {
  file::Process process;
  process.pid = identity.pid;
  process.parent_pid = static_cast<uint32_t>(getppid());
  process.hostname = identity.hostname;
  process.rank = identity.rank;
  process.world_size = identity.world_size;
  // The executable and command line are read from /proc when the process
  // first records (Writer::prepare): a process that never does pays nothing.
  process.has_clock_anchor = true;
  process.clock_anchor.realtime_ns = realtime_ns();
  process.clock_anchor.monotonic_ns = monotonic_ns();
  process.start_ns = process.clock_anchor.monotonic_ns;
  const char* window_variables[] = {"PROF_STEP", "PROF_SCHEDULE", "PROF_DELAY", "PROF_DURATION",
                                    "PROF_START", "PROF_KEEP", "PROF_MAX_MB", "PROF_WINDOW_WAIT_MS"};
  for (const char* name : window_variables) {
    const char* value = getenv(name);
    if (value == nullptr || *value == '\0') continue;
    std::string key = name + 5;  // PROF_STEP -> step
    for (char& c : key) c = static_cast<char>(tolower(c));
    process.options.emplace_back(key, value);
  }
  return process;
}

// The options the configuration gives, before the window variables.
void add_configured_options(file::Process& process, const AgentConfig& config) {
  std::vector<std::pair<std::string, std::string>> options = {
      {"output", config.output_path},
      {"log", word_of(kLogLevelWords, config.log_level)},
      {"buffer_kb", std::to_string(config.thread_buffer_bytes >> 10)},
      {"flush_ms", std::to_string(config.flush_interval_ms)},
      {"ring_wait_ms", std::to_string(config.ring_wait_ms)},
      {"nvtx", "on"},
      {"api", word_of(kApiCallWords, config.cuda.all_api_calls)},
      {"stacks", word_of(kStackModeWords, config.cuda.stacks)},
      {"stack_depth", std::to_string(config.cuda.stack_depth)},
      {"capture", word_of(kCaptureRangeWords, config.cuda.range)},
      {"backend", word_of(kCaptureBackendWords, config.cuda.backend)},
      {"gpu_timing", word_of(kGpuTimingWords, config.cuda.gpu_timing)},
      {"torch", torch_parts_name(config.torch.parts)},
      {"torch_shapes", word_of(kOffOnDigitWords, config.torch.shapes)},
      {"clock", word_of(kClockWords, config.clock)},
  };
  options.insert(options.end(), std::make_move_iterator(process.options.begin()),
                 std::make_move_iterator(process.options.end()));
  process.options = std::move(options);
}

// profanalyze capture's way in; constant-initialised like AgentState (a
// dynamic initialiser would run after on_load had started it, and reset it),
// and with no destructor to run before the exit handler stops it.
// Not in AgentState, whose header declares no part of the agent by value
// (it includes none): only this file starts, polls and stops it.
constinit OnDemandTrigger g_on_demand;
static_assert(std::is_trivially_destructible_v<OnDemandTrigger>);

void finish_recording(AgentState& agent, file::ProcessEnd::Reason reason);
void say_what_the_run_wrote(AgentState& agent, Writer* writer);

// The writer thread, its wake-up eventfd and on-demand capture's control
// file wait for the process's first record (or CUDA's start): a process that
// never records (a shell, `make`, a launcher under an exported LD_PRELOAD)
// pays for none of them, nor for the thread's malloc arena (issue #30).
// Atomics only: the first record may come from any thread, and a forked
// child resets it for its own writer. Not in AgentState: the state of
// agent.cpp's own start-up and end, which nothing else reads.
enum class WriterThread : int { idle, starting, running, closed };
std::atomic<WriterThread> g_writer_thread{WriterThread::idle};

void on_writer_pass(uint64_t now_ns);
void on_budget_spent(uint64_t now_ns);

// The writer itself (2.3 KB, and its window and correlation sets) is made
// when the process first records, starts CUDA or opens capture windows,
// from what start_recording left for it. A process that never records
// allocates none of it: at start-up the agent's objects then fit with
// libstdc++'s 72 KB emergency exception pool's head in the heap's first
// page, one zero-filled page less per process (issue #30). Until then
// agent.writer is null, as in a process that is not recording.
struct WriterRecipe {
  Recorder* recorder = nullptr;
  file::Process process;  // as at the start (describe_process_at_start)
};
// Set by start_recording (anew in a forked child) before recording starts;
// read by the thread that makes the writer. Leaked, as the writer.
WriterRecipe* g_writer_recipe = nullptr;
enum class WriterObject : int { absent, making, made };
std::atomic<WriterObject> g_writer_object{WriterObject::absent};

Writer* make_writer(const WriterRecipe& recipe, const AgentConfig& config, RunClaim& run) {
  Writer::Options options;
  options.path = config.output_path;
  options.drain_interval_ms = config.drain_interval_ms;
  options.flush_interval_ms = config.flush_interval_ms;
  options.windowed = config.windows.windowed();
  options.windows.keep = config.keep;
  options.windows.max_bytes = config.max_bytes;
  options.windows.window_wait_ms = config.window_wait_ms;
  options.windows.on_budget_spent = on_budget_spent;
  options.ring_wait_ms = config.ring_wait_ms;
  options.on_pass = on_writer_pass;
  options.on_ended_by_signal = [] {
    AgentState& state = agent_state();
    g_on_demand.stop();  // its control file goes with the process
    if (Writer* ending = state.writer.load(std::memory_order_acquire)) say_what_the_run_wrote(state, ending);
  };
  file::Process process = recipe.process;
  add_configured_options(process, config);
  auto* writer = new Writer(*recipe.recorder, options, std::move(process));
  writer->set_run_claim(&run);
  return writer;
}

// This process's writer, made by the first thread that asks; the others
// wait the moment that takes (making it records nothing and takes no lock).
Writer& made_writer() {
  AgentState& agent = agent_state();
  WriterObject expected = WriterObject::absent;
  if (g_writer_object.compare_exchange_strong(expected, WriterObject::making)) {
    agent.writer.store(make_writer(*g_writer_recipe, *agent.config, *agent.run), std::memory_order_release);
    g_writer_object.store(WriterObject::made);
  } else {
    while (g_writer_object.load() != WriterObject::made) sched_yield();
  }
  return *agent.writer.load(std::memory_order_acquire);
}

void start_writer_thread() {
  WriterThread expected = WriterThread::idle;
  if (!g_writer_thread.compare_exchange_strong(expected, WriterThread::starting)) return;
  AgentState& agent = agent_state();
  Writer* writer = &made_writer();
  if (!writer->prepare()) {  // said why; what is recorded stays in the rings
    agent.recorder.load()->stop_accepting();
    g_writer_thread.store(WriterThread::closed);
    return;
  }
  g_on_demand.start(agent.recording_pid.load());  // before the writer thread polls it
  writer->start();
  g_writer_thread.store(WriterThread::running);
}

// At the end: whether the writer thread runs (and so has a final flush to
// do); after this none starts.
bool close_writer_thread() {
  WriterThread expected = WriterThread::idle;
  if (g_writer_thread.compare_exchange_strong(expected, WriterThread::closed)) return false;
  while (expected == WriterThread::starting) {  // another thread's first record, a moment ago
    sched_yield();
    expected = g_writer_thread.load();
  }
  return expected == WriterThread::running;
}

// Set by the thread that finishes before an exec: the process goes on as
// another image (another agent, the same pid), which says the run's line.
// Not in AgentState: as g_writer_thread.
bool g_finishing_for_exec = false;

void finish(file::ProcessEnd::Reason reason) {
  AgentState& agent = agent_state();
  AgentPhase expected = AgentPhase::recording;
  if (!agent.phase.compare_exchange_strong(expected, AgentPhase::finished)) {
    // Another thread is finishing (exit() from two threads at once): this
    // one must not go on to end the process before the file is written.
    if (expected == AgentPhase::finished) wait_for_finish(false, 12'000);
    return;
  }
  note_finish_begins();
  finish_recording(agent, reason);
  note_finish_done();
}

void finish_recording(AgentState& agent, file::ProcessEnd::Reason reason) {
  const bool writer_runs = close_writer_thread();
  Writer* writer = agent.writer.load();  // null when the process never recorded
  if (writer_runs) {
    writer->wait_until_written(writer->request_flush(true, reason), 10'000);
    agent.recorder.load()->stop_accepting();
    writer->join();
    g_on_demand.stop();
  } else {
    agent.recorder.load()->stop_accepting();
  }
  say_what_the_run_wrote(agent, writer);
}

// The run's bookkeeping at the end of this process's recording: at exit,
// and on the writer thread when the process dies of a signal (SIGTERM,
// SIGINT, a crash: Python re-raises SIGINT to die of it after
// KeyboardInterrupt), whose file must be noted and, in the run's first
// process, the run's line said and its folder removed.
void say_what_the_run_wrote(AgentState& agent, Writer* writer) {
  RunClaim& run = *agent.run;
  if (agent.control.load() != nullptr && agent.control.load()->options().windowed()) {
    // Window files are named by their windows, not claimed from the run.
    if (g_finishing_for_exec) return;
    run.finish();
    // (a process with a capture control made its writer at start-up)
    if (writer->any_file_written()) {
      const unsigned long long windows = writer->windows().windows_completed();
      const unsigned long long bytes = writer->bytes_written();
      const uint32_t missing = writer->gpu_records_missing();
      if (windows == 1) {
        log_info("wrote 1 window file, %s", RunClaim::describe_file(writer->path(), bytes, missing).c_str());
      } else {
        log_info("wrote %llu window files (%llu bytes), the last %s%s", windows, bytes, writer->path().c_str(),
                 RunClaim::missing_gpu_records(missing).c_str());
      }
    } else {
      log_info("no capture window opened; no file written");
    }
    return;
  }
  // One line per run (run_claim.h): the run's first process says what the
  // run wrote; the others only note their file, unless the first is gone.
  const bool wrote = writer != nullptr && writer->wrote_file();
  const bool failed = writer != nullptr && writer->failed();
  const bool said_own =
      wrote && !run.note_written(writer->path(), writer->bytes_written(), writer->gpu_records_missing());
  if (said_own) {
    log_info("wrote %s",
             RunClaim::describe_file(writer->path(), writer->bytes_written(), writer->gpu_records_missing()).c_str());
  }
  if (g_finishing_for_exec) return;  // the last image says the run's line
  const std::string line = run.finish();
  // A note that could not be made (ulimit -n 5) leaves the run's notes
  // empty: its "nothing recorded" would contradict the line just said.
  // Nor after a failure to write, said when it happened.
  const bool contradicts = (said_own || failed) && line == RunClaim::kNothingWritten;
  if (!line.empty() && !contradicts) {
    log_info("%s", line.c_str());
  } else if (!wrote && run.first_of_run() && !run.has_folder() && !failed) {
    // (a failure was said when it happened)
    log_info("nothing recorded; no file written");
  }
}

// The writer thread's pass: time-based windows, the on-demand trigger.
void on_writer_pass(uint64_t now_ns) {
  if (CaptureControl* control = agent_state().control.load(std::memory_order_acquire)) control->tick(now_ns);
  g_on_demand.poll(now_ns);
}

void on_budget_spent(uint64_t now_ns) {
  if (CaptureControl* control = agent_state().control.load(std::memory_order_acquire)) {
    control->stop_for_good(now_ns);
  } else {
    set_capture_gate(CaptureGate::budget, false, now_ns);
  }
}

void on_exit_handler() { finish(file::ProcessEnd::Reason::exit); }

void start_cuda() {
  AgentState& agent = agent_state();
  if (agent.phase.load() != AgentPhase::recording) return;
  start_writer_thread();  // CUPTI's buffers are the writer's to drain
  start_cuda_capture(*agent.recorder.load(), made_writer(), agent.config->cuda);
}

// Whether this thread's fork() holds the writer: the phase may change
// between the prepare and the parent/child handlers (another thread exits).
thread_local bool t_fork_holds_writer = false;

void on_fork_prepare() {
  if (agent_state().phase.load() != AgentPhase::recording) return;
  Writer* writer = agent_state().writer.load();
  if (writer == nullptr) return;  // none made: nothing to hold
  writer->hold_for_fork();
  t_fork_holds_writer = true;
}

void release_writer_after_fork() {
  if (!t_fork_holds_writer) return;
  t_fork_holds_writer = false;
  agent_state().writer.load()->release_after_fork();
}

void on_fork_parent() { release_writer_after_fork(); }

// From here the hooks record CUDA calls until CUPTI (if it subscribes in
// cuInit) takes over.
void start_hooks(Recorder& recorder, const AgentConfig& config) {
  if (config.cuda.backend == CaptureBackend::cupti) return;
  start_cuda_hooks(recorder, config.cuda);
  enable_driver_wrappers();
  // No CUPTI by the end of the first cuInit (the driver called another
  // tool, or nothing): the hooks record everything.
  set_cupti_absent_handler([] {
    AgentState& state = agent_state();
    start_writer_thread();  // event timing's source is the writer's to drain
    start_cuda_without_cupti(made_writer(), state.config->cuda);
  });
}

bool start_recording(const ProcessIdentity& identity, AgentConfig config, bool forked_child);

// A forked child has only the thread that called fork: no writer thread, and
// the registry's mutex may be held by a thread that no longer exists. It
// leaks the parent's state and never touches the parent's file. With
// PROF_FOLLOW_FORK (the default) it starts a recorder and writer of its own
// and records into run.<pid>.pb; CUDA capture starts when the child starts
// CUDA (a child cannot use a CUDA its parent started). A child that execs
// starts a fresh agent anyway.
void on_fork_child() {
  release_writer_after_fork();  // this thread took it; in the child the writer is gone
  AgentState& agent = agent_state();
  if (agent.phase.load() != AgentPhase::recording) return;
  agent.phase.store(AgentPhase::off);
  // CUPTI callbacks and NVTX hooks may still fire in the child: a thread
  // that has no buffer yet must not register one (the registry's mutex may
  // be held forever), so the parent's recorder takes nothing more.
  agent.recorder.load()->stop_accepting();
  // No writer here to wait for until the child's own starts (which sets
  // PROF_RING_WAIT_MS again).
  ThreadBuffer::set_wait_limit_ns(0);
  if (!agent.config->follow_fork) return;
  Recorder::forget_this_thread();  // its buffer is the parent's, which nobody drains here
  reset_cuda_hooks_after_fork();
  const ProcessIdentity identity = read_process_identity();
  hold_lines();  // the parent said them already: start_recording asks the run
  if (start_recording(identity, read_config(identity), true)) start_hooks(*agent.recorder.load(), *agent.config);
}

// This process's recorder and writer, and recording on. False when recording
// could not start (said why already); the app runs unrecorded.
bool start_recording(const ProcessIdentity& identity, AgentConfig config, bool forked_child) {
  // The run this process belongs to (run_claim.h) names its file. A forked
  // child joins its parent's run as a process of its own, so it writes
  // <name>.<pid>.pb once the parent has claimed the name. Leaked, as the
  // recorder and writer below.
  auto* run = new RunClaim();
  run->join(identity.pid, own_library_path());
  // The configuration's warnings, once per run (held since start()).
  release_held_lines([](const char* line, void* claim) { return static_cast<RunClaim*>(claim)->say_once(line); },
                     run);
  if (forked_child) run->mark_forked_child();
  // The run's one line comes from its first process, at its exit.
  if (!forked_child && run->first_of_run() && config.log_level != LogLevel::quiet) keep_stderr_for_exit();
  config.cuda.on_cuda_ready = [] { atexit(on_exit_handler); };
  config.cuda.windowed = config.windows.windowed();
  AgentState& agent = agent_state();
  agent.config = new AgentConfig(config);

  // Deliberately leaked: app threads may still record while the process
  // exits, after static destructors would have run.
  CaptureControl* control = nullptr;
  if (config.windows.windowed() || config.windows.step_rule) {
    control = new CaptureControl(config.windows, config.output_path, monotonic_ns(), *new CaptureGates());
    agent.step_rule = control->step_rule();
    if (const StepRule* rule = control->step_rule(); rule != nullptr && rule->kind() != StepRule::Kind::kNvtx) {
      agent.cuda.step_rule = rule->ends_steps() ? StepRuleOrigin::api_end : StepRuleOrigin::entry;
    }
  }
  auto* recorder = new Recorder(config.thread_buffer_bytes);
  recorder->set_first_record_hook(start_writer_thread);
  agent.run = run;
  // The writer is made from this when it is first needed (made_writer).
  g_writer_recipe = new WriterRecipe{recorder, describe_process_at_start(identity)};
  agent.writer.store(nullptr);  // a forked child's parent's is not its own
  g_writer_object.store(WriterObject::absent);
  g_writer_thread.store(WriterThread::idle);  // this writer's (a forked child's anew)
  if (control != nullptr) {
    control->start(made_writer().windows(), monotonic_ns());
    agent.control.store(control);
    agent.steps.store(control);
    // An end rule's step 0 starts with the process.
    if (agent.cuda.step_rule == StepRuleOrigin::api_end) control->step_begins(monotonic_ns());
  }
  agent.recording_pid.store(identity.pid);

  // From here the NVTX hooks record.
  agent.recorder.store(recorder);
  agent.phase.store(AgentPhase::recording);
  // Capture windows are opened and closed by the writer's passes (PROF_DELAY,
  // a schedule, profanalyze capture's requests to a PROF_START=off process),
  // which must run whether or not anything is recorded yet.
  if (control != nullptr) start_writer_thread();
  install_signal_handlers();
  log_debug("recording to %s", config.output_path.c_str());
  return true;
}

void start() {
  hold_lines();  // until the run is known (start_recording)
  const ProcessIdentity identity = read_process_identity();
  AgentConfig config = read_config(identity);

  // NVTX3 reads this on its first call in each module; pointing it at
  // ourselves is how NVTX ranges reach us. A tool the user set wins.
  // The CUDA driver reads CUDA_INJECTION64_PATH in cuInit and calls the
  // library's InitializeInjection: CUDA capture starts when CUDA does.
  const std::string& self = own_library_path();
  if (!self.empty()) {
    env_set("NVTX_INJECTION64_PATH", self.c_str(), false);
    env_set("CUDA_INJECTION64_PATH", self.c_str(), false);
  }
  // NVTX gets nothing from a path it cannot load: ranges would be lost
  // without a word. Such a value (NVTX_INJECTION64_PATH=garbage) is
  // replaced by the agent; another tool's library keeps the ranges, said.
  const char* nvtx = env_value("NVTX_INJECTION64_PATH");
  if (nvtx != nullptr && !self.empty() && self != nvtx) {
    if (access(nvtx, R_OK) != 0) {
      log_error("NVTX_INJECTION64_PATH=%s is no library; NVTX ranges are recorded by this agent instead", nvtx);
      env_set("NVTX_INJECTION64_PATH", self.c_str(), true);
    } else {
      log_error("NVTX_INJECTION64_PATH names another tool (%s): NVTX ranges go to it and are not recorded", nvtx);
    }
  }
  const char* injection = env_value("CUDA_INJECTION64_PATH");
  if (injection != nullptr && !self.empty() && self != injection) {
    log_error("CUDA_INJECTION64_PATH names another tool (%s); CUPTI is used only if that is a copy of this agent%s",
              injection, config.cuda.backend != CaptureBackend::cupti ? ", else the agent's hooks record CUDA calls" : "");
  }
  choose_host_clock(config.clock);
  if (config.cuda.range == CaptureRange::cuda_profiler_api) set_capture_gate(CaptureGate::profiler_api, false, monotonic_ns());
  if (!start_recording(identity, config, false)) return;
  AgentState& agent = agent_state();
  Recorder* recorder = agent.recorder.load();
  start_hooks(*recorder, *agent.config);
  start_python_bootstrap(agent.config->torch, self);
  atexit(on_exit_handler);
  pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
}

bool another_agent_is_active() {
  const void* first = dlsym(RTLD_DEFAULT, "libprof_agent_marker");
  return first != nullptr && first != &libprof_agent_marker_here;
}

// Whether LD_PRELOAD names this library (by file, or by name for a bare
// one the loader found on its search path).
bool preloaded(const std::string& self) {
  const char* preload = env_value("LD_PRELOAD");
  if (preload == nullptr) return false;
  // The loader names the library as LD_PRELOAD did: the common case needs
  // no stat.
  for (const char* at = strstr(preload, self.c_str()); at != nullptr; at = strstr(at + 1, self.c_str())) {
    const char end = at[self.size()];
    if ((at == preload || at[-1] == ':' || at[-1] == ' ') && (end == '\0' || end == ':' || end == ' ')) return true;
  }
  struct stat own {};
  if (stat(self.c_str(), &own) != 0) return false;
  const std::string list = preload;
  const std::string own_name = self.substr(self.rfind('/') + 1);
  for (size_t begin = 0; begin <= list.size();) {
    size_t end = list.find_first_of(": ", begin);
    if (end == std::string::npos) end = list.size();
    const std::string entry = list.substr(begin, end - begin);
    struct stat st {};
    if (!entry.empty() && stat(entry.c_str(), &st) == 0 && st.st_dev == own.st_dev && st.st_ino == own.st_ino) {
      return true;
    }
    if (!entry.empty() && entry.find('/') == std::string::npos && entry == own_name) return true;
    begin = end + 1;
  }
  return false;
}

// A process the program took out of profiling (it started it without
// LD_PRELOAD and PROF_OUTPUT) still loads the agent through the injection
// paths the agent handed down to its children (NVTX dlopens
// NVTX_INJECTION64_PATH at the first range): it stays out, as it would
// without them. Handed down: inside a run (PROF_RUN), or both paths naming
// this library as the agent sets them; CUDA_INJECTION64_PATH set alone by
// the user is a way in of its own.
bool taken_out_of_profiling() {
  if (env_value("PROF_OUTPUT") != nullptr) return false;
  const std::string& self = own_library_path();
  if (self.empty() || preloaded(self)) return false;
  const char* nvtx = env_value("NVTX_INJECTION64_PATH");
  const char* cuda = env_value("CUDA_INJECTION64_PATH");
  const bool both_ours = nvtx != nullptr && cuda != nullptr && self == nvtx && self == cuda;
  return env_value("PROF_RUN") != nullptr || both_ours;
}

[[gnu::constructor]] void on_load() {
  if (!glibc_threads_and_dl_loaded()) {
    const char* log = env_value("PROF_LOG");
    if (log == nullptr || strcmp(log, "quiet") != 0) {
      log_error(
          "this process has not loaded libpthread.so.0 and libdl.so.2, which the agent needs on a glibc before "
          "2.34: it runs unrecorded");
    }
    return;
  }
  if (another_agent_is_active()) return;
  if (taken_out_of_profiling()) return;
  start();
}

// The first copy of the agent in the process, which does the work.
using InjectionEntry = int (*)();
InjectionEntry first_agent_entry() {
  return reinterpret_cast<InjectionEntry>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
}

// A fallback for exits that skip atexit handlers registered after this
// library's constructor (the handler list is per object under dlclose).
[[gnu::destructor]] void on_unload() { finish(file::ProcessEnd::Reason::exit); }

}  // namespace

void finish_before_exit() {
  // getpid() is a system call (glibc caches no pid): a vfork child sees its own.
  AgentState& agent = agent_state();
  if (getpid() != agent.recording_pid.load()) return;
  finish(file::ProcessEnd::Reason::exit);  // or waits for the thread that finishes
}

bool finish_unrecorded_before_signal_death() {
  AgentState& agent = agent_state();
  if (getpid() != agent.recording_pid.load() || agent.phase.load() != AgentPhase::recording) return false;
  // Not while a writer runs (or starts): it says the run's line itself.
  WriterThread expected = WriterThread::idle;
  if (!g_writer_thread.compare_exchange_strong(expected, WriterThread::closed)) return false;
  finish(file::ProcessEnd::Reason::signal);  // finds the writer closed: says what the run wrote
  return true;
}

void finish_before_exec() {
  AgentState& agent = agent_state();
  if (getpid() != agent.recording_pid.load() || agent.phase.load() != AgentPhase::recording) return;
  g_finishing_for_exec = true;
  finish(file::ProcessEnd::Reason::exit);
}

}  // namespace prof

// The CUDA driver's injection entry (CUDA_INJECTION64_PATH), called from
// cuInit. Returns 1: a 0 would make the driver report an error to the app.
extern "C" [[gnu::visibility("default")]] int InitializeInjection() {
  using namespace prof;
  if (!glibc_threads_and_dl_loaded()) return 1;  // dormant: said so at load
  if (another_agent_is_active()) {
    // This copy stays inert; the driver found it under another path than
    // the preloaded one, so forward to the copy that records.
    InjectionEntry first = first_agent_entry();
    if (first != nullptr && first != &initialize_injection_here) return first();
    return 1;
  }
  start_cuda();
  // Also registered here for programs that only use the driver API (no
  // runtime call would trigger on_cuda_ready early enough otherwise).
  if (agent_state().phase.load() == AgentPhase::recording) atexit(on_exit_handler);
  return 1;
}
