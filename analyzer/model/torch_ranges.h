#pragma once
// The NVTX ranges torch writes under torch.autograd.profiler.emit_nvtx (and
// nsys --pytorch=autograd-nvtx), read back into what torch.profiler shows:
// the operator's name, its autograd sequence number, its RecordFunction id,
// its input shapes.
//
// torch's format (torch/csrc/profiler/util.cpp, getNvtxStr), each part
// present only under its condition:
//
//   NAME[, seq = N][, op_id = M][, sizes = [[a, b], [], ...]][, input_op_ids = [(id,out), ...]]
//
//   seq          the autograd sequence number, when the op is recorded for
//                backward (a forward op) or is a backward node (the same
//                number as the forward op that created it: the tie)
//   op_id        the RecordFunction handle (torch 2.x; absent in 1.13)
//   sizes        the inputs' shapes (record_shapes=True), torch's
//                shapesToStr: "[[64, 128], [128], []]", one list per input
//   input_op_ids the op ids that produced the inputs (torch 2.x, with shapes)
//
// Older releases wrote ", stashed seq = N" on backward nodes and, when a
// range had shapes but no sequence number, dropped the name (legacy
// profiler): both read too. So does a tail the agent cut at its string
// limit (a TensorList argument's sizes run to kilobytes): whole parts
// (seq, op_id) then the text ending inside a list or a part's name.
// Anything else that does not end in such a tail is no torch range, and
// keeps its whole text as its name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/run.h"

namespace prof::analyzer {

enum class TorchRangeKind : uint8_t {
  kNone,         // not written by torch's emit_nvtx (a plain NVTX range)
  kOperator,     // an aten op, a custom op, an autograd backward node: Kineto's cpu_op
  kAnnotation,   // a record_function scope (Optimizer.step#..., ProfilerStep#N): user_annotation
  kModule,       // "nn.Module: Net.encoder.layers.0" (with_modules' hierarchy)
};

struct TorchRange {
  TorchRangeKind kind = TorchRangeKind::kNone;
  std::string name;                 // the name with torch's tail parsed off
  std::optional<int64_t> seq;       // autograd sequence number
  bool stashed_seq = false;         // written as "stashed seq" (older backward nodes)
  std::optional<uint64_t> op_id;    // RecordFunction handle
  std::optional<std::string> sizes; // torch's Input Shapes text: "[[64, 128], []]"
  std::string input_op_ids;         // "[(3,0), (5,0)]" as written; empty: none
  bool backward = false;            // an autograd node's range (AddmmBackward0, ...)
  // The agent cut the string at its limit inside the tail: the name and the
  // whole parts before the cut are read; sizes and input_op_ids are not.
  bool cut = false;
};

// Parses one range name. A name with no torch tail is kNone unless it is
// one of the scopes torch names itself ("nn.Module: ...", "ProfilerStep#N",
// "Optimizer.step#...", "enumerate(DataLoader)#...").
TorchRange parse_torch_range(std::string_view text);

// Parses a sizes list ("[[64, 128], [], [3]]") into shapes; nullopt when
// the text is not one.
std::optional<std::vector<std::vector<int64_t>>> parse_torch_sizes(std::string_view text);

// "name#N" (a counter suffix, digits only) becomes "name*", as torch's
// tables write "ProfilerStep*" for every ProfilerStep#N; other names are
// returned as they are ("Optimizer.step#AdamW.step" keeps its '#').
std::string merged_counter_name(std::string_view name);

// Every name of a Run parsed once, by NameId: views ask per event.
class TorchRanges {
 public:
  explicit TorchRanges(const Run& run);
  const TorchRange& of(NameId name) const { return ranges_[name]; }
  // Any range of the run was written by torch (kOperator or a torch tail).
  bool any_operator() const { return any_operator_; }
  // The event is a push/pop range torch wrote for an operator.
  bool is_operator(const CpuEvent& e) const {
    return e.kind == CpuEventKind::kPushPopRange && e.nvtx_domain() == Run::kNoName && of(e.name).kind == TorchRangeKind::kOperator;
  }

 private:
  std::vector<TorchRange> ranges_;
  bool any_operator_ = false;
};

}  // namespace prof::analyzer
