// torch's emit_nvtx range strings (torch/csrc/profiler/util.cpp getNvtxStr,
// 1.13 and 2.x; the legacy profiler's "stashed seq") read back as torch
// names them.
#include <catch2/catch.hpp>

#include <string>

#include "model/torch_ranges.h"

using prof::analyzer::merged_counter_name;
using prof::analyzer::parse_torch_range;
using prof::analyzer::parse_torch_sizes;
using prof::analyzer::TorchRangeKind;

TEST_CASE("torch 2.x forward op: name, seq, op_id, sizes and input_op_ids parsed off") {
  const auto r = parse_torch_range(
      "aten::addmm, seq = 12, op_id = 40, sizes = [[256], [64, 128], [128, 256], [], []], input_op_ids = [(3,0), (5,0)]");
  CHECK(r.kind == TorchRangeKind::kOperator);
  CHECK(r.name == "aten::addmm");
  CHECK(r.seq == 12);
  CHECK(r.op_id == 40u);
  CHECK(r.sizes == "[[256], [64, 128], [128, 256], [], []]");
  CHECK(r.input_op_ids == "[(3,0), (5,0)]");
  CHECK_FALSE(r.backward);
}

TEST_CASE("torch 2.x without shapes, an op with no seq, and a record_function scope") {
  const auto fwd = parse_torch_range("aten::relu, seq = 7, op_id = 9");
  CHECK(fwd.name == "aten::relu");
  CHECK(fwd.seq == 7);
  CHECK(fwd.op_id == 9u);
  CHECK_FALSE(fwd.sizes.has_value());
  const auto empty = parse_torch_range("aten::empty, op_id = 3, sizes = [[], [], [], [], [], []]");
  CHECK(empty.kind == TorchRangeKind::kOperator);
  CHECK_FALSE(empty.seq.has_value());
  CHECK(empty.sizes == "[[], [], [], [], [], []]");
  const auto step = parse_torch_range("ProfilerStep#3, op_id = 1");
  CHECK(step.kind == TorchRangeKind::kAnnotation);
  CHECK(step.name == "ProfilerStep#3");
  const auto optimizer = parse_torch_range("Optimizer.step#AdamW.step, op_id = 77");
  CHECK(optimizer.kind == TorchRangeKind::kAnnotation);
  CHECK(optimizer.name == "Optimizer.step#AdamW.step");
  const auto user = parse_torch_range("my_block, op_id = 5");
  CHECK(user.kind == TorchRangeKind::kAnnotation);
  CHECK(user.name == "my_block");
}

TEST_CASE("torch 1.13: seq and sizes, no op_id; plain names of ops without seq") {
  const auto r = parse_torch_range("aten::mm, seq = 4, sizes = [[64, 256], [256, 128]]");
  CHECK(r.kind == TorchRangeKind::kOperator);
  CHECK(r.name == "aten::mm");
  CHECK(r.seq == 4);
  CHECK_FALSE(r.op_id.has_value());
  CHECK(r.sizes == "[[64, 256], [256, 128]]");
  const auto plain = parse_torch_range("aten::empty");
  CHECK(plain.kind == TorchRangeKind::kOperator);
  CHECK(plain.name == "aten::empty");
  CHECK(parse_torch_range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__").kind ==
        TorchRangeKind::kAnnotation);
}

TEST_CASE("backward nodes carry their forward op's seq; the legacy 'stashed seq' reads too") {
  const auto node = parse_torch_range("AddmmBackward0, seq = 12, op_id = 80");
  CHECK(node.kind == TorchRangeKind::kOperator);
  CHECK(node.backward);
  CHECK(node.seq == 12);
  const auto wrapper = parse_torch_range("autograd::engine::evaluate_function: AddmmBackward0, seq = 12, op_id = 79");
  CHECK(wrapper.name == "autograd::engine::evaluate_function: AddmmBackward0");
  CHECK(wrapper.backward);
  const auto legacy = parse_torch_range("MulBackward, stashed seq=42");
  CHECK(legacy.name == "MulBackward");
  CHECK(legacy.backward);
  CHECK(legacy.stashed_seq);
  CHECK(legacy.seq == 42);
  const auto legacy_fwd = parse_torch_range("aten::mul, seq=42");
  CHECK(legacy_fwd.seq == 42);
  CHECK_FALSE(legacy_fwd.stashed_seq);
}

TEST_CASE("names that only look like torch's keep their whole text") {
  for (const char* text : {"step, seq = x", "a, b", "load, sizes = [[1, 2]",
                           "aten::add, sizes = [[1,2]]", "compute", "step#0", ""}) {
    const auto r = parse_torch_range(text);
    CHECK(r.name == text);
    CHECK_FALSE(r.seq.has_value());
    CHECK_FALSE(r.op_id.has_value());
  }
  CHECK(parse_torch_range("compute").kind == TorchRangeKind::kNone);
  CHECK(parse_torch_range("nn.Module: Net.encoder.layers.0.attn").kind == TorchRangeKind::kModule);
  // A name holding ", " itself: the earliest whole tail wins.
  const auto comma = parse_torch_range("my op, phase 2, op_id = 8");
  CHECK(comma.name == "my op, phase 2");
  CHECK(comma.op_id == 8u);
}

TEST_CASE("sizes parse as torch's Input Shapes lists") {
  CHECK(parse_torch_sizes("[]") == std::vector<std::vector<int64_t>>{});
  CHECK(parse_torch_sizes("[[64, 128], [], [3]]") == std::vector<std::vector<int64_t>>{{64, 128}, {}, {3}});
  CHECK_FALSE(parse_torch_sizes("[[64,128]]"));
  CHECK_FALSE(parse_torch_sizes("[[64, ]]"));
  CHECK_FALSE(parse_torch_sizes("[[1], ]"));
  CHECK_FALSE(parse_torch_sizes("[1]"));
}

TEST_CASE("a counter suffix merges into one row name, other '#' names stay") {
  CHECK(merged_counter_name("ProfilerStep#12") == "ProfilerStep*");
  CHECK(merged_counter_name("step#0") == "step*");
  CHECK(merged_counter_name("Optimizer.step#AdamW.step") == "Optimizer.step#AdamW.step");
  CHECK(merged_counter_name("step#") == "step#");
  CHECK(merged_counter_name("plain") == "plain");
}

namespace {

// `head` followed by a list of 3x32x32 shapes, cut as the agent cuts an
// NVTX message: at 1024 bytes (FORMAT.md).
std::string cut_at_agent_limit(std::string head) {
  while (head.size() < 1024) head += "[3, 32, 32], ";
  return head.substr(0, 1024);
}

}  // namespace

TEST_CASE("a tail the agent cut at its string limit still gives the operator's name") {
  // DataLoader's aten::stack of a 64-sample batch: one shape per tensor,
  // past the agent's 1024 bytes.
  const auto stack = parse_torch_range(cut_at_agent_limit("aten::stack, seq = 5, op_id = 812, sizes = [["));
  CHECK(stack.kind == TorchRangeKind::kOperator);
  CHECK(stack.name == "aten::stack");
  CHECK(stack.cut);
  CHECK(stack.seq == 5);
  CHECK(stack.op_id == 812u);
  CHECK_FALSE(stack.sizes.has_value());
  // torch 1.13: no seq or op_id.
  const auto old = parse_torch_range(cut_at_agent_limit("aten::cat, sizes = [["));
  CHECK(old.name == "aten::cat");
  CHECK(old.cut);
  // Cut inside input_op_ids (the sizes were whole: not kept), a part's
  // name, or right after a separator.
  std::string ids_text = "aten::add_, seq = 2, op_id = 9, sizes = [[4], [4]], input_op_ids = [";
  while (ids_text.size() < 1024) ids_text += "(3,0), ";
  const auto ids = parse_torch_range(ids_text.substr(0, 1024));
  CHECK(ids.name == "aten::add_");
  CHECK(ids.cut);
  CHECK_FALSE(ids.sizes.has_value());
  for (const char* tail : {", siz", ", ", ", sizes = ", ", op_id =", ","}) {
    std::string name(1024 - 10 - std::string(tail).size(), 'x');
    name.replace(0, 6, "aten::");
    const std::string text = name + ", seq = 31" + tail;
    REQUIRE(text.size() == 1024);
    const auto r = parse_torch_range(text);
    CHECK(r.name == name);
    CHECK(r.seq == 31);
    CHECK(r.cut);
  }
  // A whole tail is never read as a cut one.
  CHECK_FALSE(parse_torch_range("aten::mm, seq = 4, sizes = [[64, 256], [256, 128]]").cut);
}

TEST_CASE("a name shorter than the agent's limit is never read as cut") {
  for (const char* text : {"aten::stack, seq = 5, op_id = 812, sizes = [[[3, 32, 32], [3, 32, 3",
                           "load, sizes = [[1, 2]", "epoch 1, sizes = [3", "stage, se", "aten::mul, seq = 3, "}) {
    const auto r = parse_torch_range(text);
    CHECK(r.name == text);
    CHECK_FALSE(r.cut);
  }
  // At the limit too, text that does not end inside torch's tail.
  CHECK(parse_torch_range(std::string(1024, 'a')).name == std::string(1024, 'a'));
  const std::string phase = cut_at_agent_limit("phase 2, batch [[");
  CHECK(parse_torch_range(phase).name == phase);
}
