#pragma once
// The operator side of the Chrome trace: what makes torch's operators in a
// capture read as Kineto's in HTA's and TensorBoard's operator views.
//
// - A push/pop range torch wrote for an operator (aten::addmm, an autograd
//   node; TorchRangeKind::kOperator) is a "cpu_op" event named as torch
//   names it (the ", seq = N, op_id = M, sizes = [...]" tail parsed off),
//   with Kineto's args: "External id", "Record function id" (op_id),
//   "Sequence number" and "Fwd thread id" (with a seq), "Input Dims" (the
//   sizes, as JSON lists). torch's other scopes (ProfilerStep#N,
//   Optimizer.step#..., nn.Module: ...) and plain NVTX ranges stay
//   "user_annotation", torch's scopes with their tail parsed off too.
// - "External id": every push/pop range's is its index + 1; each runtime and
//   driver call, and each kernel, copy, memset and synchronization it led
//   to, carries the External id of the innermost push/pop range around the
//   call, as Kineto gives GPU work its innermost op's (none outside ranges).
// - "fwdbwd" flows, as Kineto draws them: from a forward op to the backward
//   node that has its sequence number (its first range, the
//   evaluate_function wrapper when torch wrote one), on the same process.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "model/torch_ranges.h"

namespace prof::analyzer {

class TraceOperators {
 public:
  TraceOperators(const Run& run, const RangeParents& parents);

  // Kineto's External id of push/pop range `range`: its index + 1.
  static uint64_t range_external_id(size_t range) { return range + 1; }
  // The External id of the innermost push/pop range around CPU event
  // `index` (an API call); 0: none, write no arg.
  uint64_t enclosing_external_id(size_t index) const;
  // The same for GPU work or a synchronization by the call that made it
  // (-1: no recorded call).
  uint64_t external_id_of_call(int64_t call) const {
    return call < 0 ? 0 : enclosing_external_id(static_cast<size_t>(call));
  }

  bool is_operator(size_t range) const;
  // "cpu_op" for operators, "user_annotation" for every other range.
  const char* category(size_t range) const { return is_operator(range) ? "cpu_op" : "user_annotation"; }
  // torch's name of a range in the default domain (tail parsed off); the
  // recorded name otherwise.
  std::string name(size_t range) const;
  // The args after "External id", each as `,"key":value`: Kineto's
  // operator args, or nothing for other ranges. Made once per name.
  const std::string& operator_args(size_t range) const;

  struct Flow {
    uint64_t id = 0;
    bool start = true;  // "s" on the forward op; false: "f" on the backward node
  };
  // The fwdbwd flow end on range `range`, if it has one.
  const Flow* flow_at(size_t range) const {
    auto it = flows_.find(range);
    return it == flows_.end() ? nullptr : &it->second;
  }

 private:
  const Run& run_;
  const RangeParents& parents_;
  TorchRanges torch_;
  std::vector<std::string> operator_args_;  // by NameId; empty for other names
  std::unordered_map<size_t, Flow> flows_;
};

}  // namespace prof::analyzer
