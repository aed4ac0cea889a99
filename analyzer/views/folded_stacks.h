#pragma once
// flamegraph.pl's folded stacks (torch's export_stacks): one line per
// distinct stack, frames root first separated by ';', a space, an integer
// count of microseconds. Read by flamegraph.pl, inferno, speedscope, and
// by FlameGraphSvg here.
//
// The stack of an event, root first:
//   [thread]            with per_thread: "thread 12 (name)" (with several
//                       processes "pid 3 thread 12 (name)")
//   native/Python frames the call stack recorded at the API call, with the
//                       frames inside the CUDA libraries and the agent
//                       (libcudart, libcuda, libcupti, libprof) dropped from
//                       the leaf end, so it ends at the app's call site;
//   NVTX ranges         with the push/pop ranges (torch's operators too)
//                       enclosing the event on its thread placed among
//                       them: a range records no stack, so it goes after the
//                       root frames that every call made inside it shares
//                       (the frame that opened it, or one below it), so
//                       `main;step#0;compute;cudaLaunchKernel` and, for
//                       torch, `<python frames>;aten::addmm;<native frames
//                       of libtorch>;cudaLaunchKernel`
//   the event           the API call (or push/pop range) itself
//   GPU work            self_cuda_time_total only: the kernel, copy or set
//
// self_cpu_time_total counts every API call and push/pop range by its self
// time (the RangeTree's), so the graph's total is the report's "Self CPU
// time total" (start/end ranges, which never nest, are left out). A range
// has no recorded call stack, so its self time sits under the ranges alone.
// self_cuda_time_total counts each GPU activity's duration under the stack
// of the API call that launched it; work with no recorded launch is a root
// frame of its own (under "GPU d stream s" with per_thread).
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "views/frame_names.h"

namespace prof::analyzer {

enum class StackMetric { kSelfCpu, kSelfCuda };

// torch's metric names: "self_cpu_time_total", "self_cuda_time_total".
std::optional<StackMetric> parse_stack_metric(std::string_view name);

struct FoldedStacksOptions {
  StackMetric metric = StackMetric::kSelfCuda;
  bool per_thread = false;
  const FrameNamer* namer = nullptr;  // nullptr: ModuleOffsetFrameNamer
};

struct FoldedStack {
  std::string frames;  // "root;...;leaf", every frame already made safe
  uint64_t ns = 0;     // summed over the events with this stack
};

// Orders text as people count: "step#2" before "step#10" (runs of digits
// compared by value), otherwise byte by byte.
struct NaturalLess {
  bool operator()(std::string_view a, std::string_view b) const;
};

// Identical stacks merged, sorted by their text in NaturalLess order (the
// order is stable, so the output diffs well; flamegraph.pl sorts anyway).
std::vector<FoldedStack> folded_stacks(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options);

// The same for each of `metrics` (options.metric unread), from one placing
// of the ranges and one trie of stacks: an event's stack does not depend on
// the metric, and html, which shows two, made them twice. From the parent
// links alone: the self times, where a metric needs them, are made after
// the trie, in the place of the ranges' placements, so html holds 16 bytes
// per CPU event beside the links where a RangeTree and the placements held
// 32 (its GPU and self time figures, which no stack reads but self time).
std::vector<std::vector<FoldedStack>> folded_stacks_of_metrics(const Run& run, const RangeParents& parents,
                                                               const FoldedStacksOptions& options,
                                                               const std::vector<StackMetric>& metrics);

// Writes "frames count\n" lines. Counts are microseconds rounded to the
// nearest (summed before rounding, so many sub-microsecond kernels still
// count); a stack that rounds to 0 is left out, as flamegraph.pl wants
// positive counts. Returns the lines written.
size_t write_folded_stacks(const std::vector<FoldedStack>& stacks, std::ostream& out);

// A frame name that cannot break the format: ';', tab, CR, LF and other
// control characters become '_' (torch's rule, except that spaces, which
// flamegraph.pl takes in frames, stay); an empty name is "[unknown]".
std::string folded_frame_name(std::string_view name);

// True for the modules whose frames are dropped from the leaf end: the CUDA
// runtime, driver and CUPTI, and the agent itself.
bool is_cuda_or_agent_module(std::string_view path);

}  // namespace prof::analyzer
