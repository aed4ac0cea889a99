#pragma once
// The agent's configuration, read once from the environment at start-up.
// Every variable is documented in the README ("Configuration").
#include <cstddef>
#include <cstdint>
#include <string>
#include <optional>

#include "capture/cuda_capture.h"
#include "common/host_clock.h"
#include "common/log.h"
#include "control/capture_control.h"

namespace prof {

struct ProcessIdentity {
  uint32_t pid = 0;
  std::string hostname;
  int rank = -1;        // RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID; -1: none
  int world_size = -1;  // WORLD_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_NTASKS
};

// What the Python bootstrap (agent/python/) turns on once a program imports
// torch: PROF_TORCH=off, or a comma list of these parts (default all).
enum TorchPart : uint32_t {
  kTorchOps = 1,      // torch.autograd.profiler.emit_nvtx: operator ranges
  kTorchModules = 2,  // nn.Module calls as "nn.Module: Net.encoder" ranges
  kTorchSteps = 4,    // each optimizer.step() ends a ProfilerStep#N range
  kTorchMemory = 8,   // the caching allocator's tensor blocks
  kTorchAll = 15,
};
struct TorchOptions {
  uint32_t parts = kTorchAll;  // PROF_TORCH
  bool shapes = true;          // PROF_TORCH_SHAPES: emit_nvtx's record_shapes
};
// PROF_TORCH's value: "off" (0), "" (all) or a comma list of ops, modules,
// steps, memory. nullopt with `error` set otherwise.
std::optional<uint32_t> parse_torch_parts(const std::string& text, std::string& error);
// The other way: "off", or the parts as PROF_TORCH lists them.
std::string torch_parts_name(uint32_t parts);

struct AgentConfig {
  std::string output_path;            // PROF_OUTPUT, expanded
  LogLevel log_level = LogLevel::info;  // PROF_LOG
  // PROF_BUFFER_KB. 16 MiB: ~100 ms of a launch loop's records (~140k API
  // calls) or ~320k NVTX events, enough to ride out the writer waiting
  // tens of milliseconds for a CPU on a loaded machine. Memory is committed
  // as a thread fills its ring (2 MiB huge pages where the kernel has them),
  // so a thread that records little costs little.
  size_t thread_buffer_bytes = 16u << 20;
  uint32_t flush_interval_ms = 500;     // PROF_FLUSH_MS
  // PROF_RING_WAIT_MS: when a thread's ring is more than half full, the
  // longest the thread waits for the writer before an NVTX push, mark or
  // start made with no range of its own open (so that the wait is inside no
  // recorded interval); 0: never wait, drop and count at once.
  // ThreadBuffer::wait_for_room has the rule.
  uint32_t ring_wait_ms = 1000;
  uint32_t drain_interval_ms = 10;      // how often the writer empties the buffers
  CudaCaptureOptions cuda;              // PROF_API, PROF_STACKS, PROF_STACK_DEPTH, PROF_CAPTURE
  // PROF_FOLLOW_FORK: a forked child (without exec) records into its own
  // file, run.<pid>.pb; 0 leaves children unrecorded.
  bool follow_fork = true;
  // PROF_STEP, PROF_SCHEDULE, PROF_DELAY, PROF_DURATION, PROF_START
  CaptureControlOptions windows;
  uint32_t keep = 0;                    // PROF_KEEP (0: every window file)
  uint64_t max_bytes = 0;               // PROF_MAX_MB (0: no cap)
  // PROF_WINDOW_WAIT_MS: the longest a window's end waits for the GPU
  // records of the work launched inside it.
  uint32_t window_wait_ms = 2000;
  TorchOptions torch;                   // PROF_TORCH, PROF_TORCH_SHAPES
  // PROF_CLOCK: the app threads' timestamps from the invariant TSC where
  // there is one (auto), or from clock_gettime always (monotonic).
  ClockChoice clock = ClockChoice::automatic;
};

// PROF_SCHEDULE=skip_first=N,wait=N,warmup=N,active=N,repeat=N (any subset,
// any order; torch.profiler.schedule's defaults otherwise). nullopt with
// `error` set when it is not that or torch would refuse it.
std::optional<Schedule> parse_schedule(const std::string& text, std::string& error);

// Reads the variables through `getenv`. Invalid values fall back to the
// default with one log line; configuration never stops the app.
AgentConfig read_config(const ProcessIdentity& identity);

ProcessIdentity read_process_identity();

// Expands %p (pid), %h (host), %r (rank, "0" when none) and %% in PROF_OUTPUT.
std::string expand_output_template(const std::string& pattern, const ProcessIdentity& identity);

// A process started from a profiled process (fork + exec) inherits the
// environment and so the same PROF_OUTPUT. When the template has no %p and a
// profiled ancestor exists, the pid goes before the extension so that the two
// never write one file: run.pb -> run.12345.pb.
std::string disambiguate_for_child(const std::string& path, uint32_t pid);

}  // namespace prof
