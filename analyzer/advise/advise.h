#pragma once
// `profanalyze advise`: the bottlenecks of a window, measured and explained.
//
// The measurements (what each device did in each step, where its idle time
// went, copies, kernels, memory, ranks) come first; findings are drawn from
// them, each with what was measured, why it matters, what people usually
// do, and the call site it comes from, ranked by the GPU time it costs.
//
// Where idle time goes (idle_causes.cpp): on each (process, device), every
// gap with no kernel running, between its first and last GPU work of the
// window, is split into
//   copy wait      a copy or memset runs, no kernel does (compute waits on data);
//   sync wait      nothing runs, and when the GPU ran dry the thread that
//                  launched the next work was blocked in a synchronizing call
//                  (cudaDeviceSynchronize, a blocking cudaMemcpy...): it could
//                  not queue work ahead, so the GPU waits for it to come back;
//   allocation     the same, in cudaMalloc/cudaFree-style calls (cudaFree
//                  waits for the device), or host time spent in them while the
//                  GPU had nothing queued;
//   launch overhead nothing queued, the thread is inside launch calls;
//   other calls    nothing queued, the thread is inside other CUDA calls;
//   host work      nothing queued, the thread is outside CUDA (data loading,
//                  Python, CPU work), charged to the call that came next;
//   queued         the next work was launched before the GPU ran dry but had
//                  not started (launch latency, stream or event dependencies);
//   unattributed   the next work has no recorded launching call.
#include <cstdint>
#include <string>
#include <vector>

#include "model/run.h"
#include "views/frame_names.h"
#include "window/steps.h"

namespace prof::analyzer {

enum class IdleCause : uint8_t {
  kCopyWait,
  kSync,
  kAllocation,
  kLaunchOverhead,
  kOtherCalls,
  kHostWork,
  kQueued,
  kUnattributed,
  kCount
};
// "copy_wait", "sync", ... (the JSON keys, with "_ns").
const char* idle_cause_key(IdleCause cause);

// A number or a short text measured for a finding (JSON "metrics").
struct Metric {
  std::string key;
  double number = 0;
  std::string text;  // non-empty: a text metric
};

// Where a finding comes from: one API call site (the app frames of its
// stack, innermost first), with what it cost there.
struct CallSite {
  std::string api;                  // "cudaMemcpy"
  std::vector<std::string> frames;  // "read_loss (sync_read.cu:25)", innermost first; empty: no stack
  uint64_t calls = 0;
  uint64_t cost_ns = 0;
};

struct Finding {
  std::string kind;   // "sync", "launch_bound", ... (analyzer/README.md lists them)
  std::string title;  // one line
  uint64_t cost_ns = 0;  // GPU time it costs; 0: a risk, not a time cost
  double cost_pct = 0;   // of the window's gpu_span_ns
  std::string measured;
  std::string why;
  std::string action;  // what people usually do
  std::vector<CallSite> where;  // most costly first
  std::vector<Metric> metrics;
};

// One stream's or device's time between its first and last work in the window.
struct Usage {
  uint64_t span_ns = 0;
  uint64_t kernel_ns = 0;  // union of kernels
  uint64_t copy_ns = 0;    // copies running with no kernel
  uint64_t memset_ns = 0;  // memsets running with no kernel or copy
  uint64_t idle_ns = 0;    // nothing running
};

struct StreamUsage {
  uint32_t stream = 0;
  Usage usage;
};

struct DeviceUsage {
  uint32_t process = 0;  // index into Run::processes
  uint32_t device = 0;
  Usage usage;
  uint64_t idle_by_cause[static_cast<size_t>(IdleCause::kCount)] = {};  // kernel-idle time, split
  std::vector<StreamUsage> streams;
};

struct StepUsage {
  uint32_t process = 0;
  int64_t step = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  Usage usage;  // within [start, start + duration), summed over the process's devices
  uint64_t idle_by_cause[static_cast<size_t>(IdleCause::kCount)] = {};
  uint64_t allocations = 0;  // device memory records: allocations and releases
  uint64_t frees = 0;
  uint64_t allocated_bytes = 0;
  int64_t peak_memory_bytes = -1;  // device memory in use at its highest; -1: no memory records
  // GPU work launched (call started) but not yet started, sampled at each
  // launch of the step: how far the host runs ahead of the GPU.
  double mean_queue_depth = 0;
  uint64_t max_queue_depth = 0;
};

struct KernelTotal {
  std::string name;
  uint64_t count = 0;
  uint64_t total_ns = 0;
};

struct MemoryPeak {
  uint32_t process = 0;
  uint32_t device = 0;
  uint64_t peak_bytes = 0;
  uint64_t capacity_bytes = 0;  // 0: not recorded
};

struct RankSteps {
  uint32_t process = 0;
  int32_t rank = -1;  // -1: no rank variable; the process index is shown
  uint64_t steps = 0;
  uint64_t median_step_ns = 0;
  uint64_t mean_step_ns = 0;
};

struct AdviseWindow {
  uint64_t step_time_ns = 0;  // the steps' durations summed over processes (0: no steps)
  // The devices' spans summed (first to last GPU work of the window on each):
  // what finding costs are shares of. Step time would do as well but for
  // the last step of a start rule, which runs to the end of the process.
  uint64_t gpu_span_ns = 0;
  std::vector<Finding> findings;  // by cost, descending
  std::vector<DeviceUsage> devices;
  std::vector<StepUsage> steps;
  std::vector<KernelTotal> top_kernels;  // by total time, at most 10
  uint64_t kernel_total_ns = 0;
  std::vector<MemoryPeak> memory;
  std::vector<RankSteps> ranks;
};

struct AdviseInput {
  // The window's events (a selection of steps, or the whole run).
  const Run* events = nullptr;
  // The whole run: memory in use is a running sum from its start.
  const Run* run = nullptr;
  // The run's steps (empty: none) and the window's step numbers (empty: all).
  const RunSteps* steps = nullptr;
  std::vector<int64_t> window_steps;
  const FrameNamer* namer = nullptr;
  // A time finding below this share of the GPU span is not reported.
  double min_cost_share = 0.03;
  // The cores it may use (PROFANALYZE_JOBS): 0 every core, as cores_for.
  unsigned jobs = 0;
};

AdviseWindow advise_window(const AdviseInput& input);

}  // namespace prof::analyzer
