#include "model/torch_ranges.h"

#include <cctype>
#include <charconv>

namespace prof::analyzer {
namespace {

// The agent cuts an NVTX message to this many bytes (FORMAT.md,
// "Interning"): a name this long may end inside torch's tail.
constexpr size_t kAgentMessageLimit = 1024;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Reads an integer at the front of `text`, advancing it.
template <typename Int>
std::optional<Int> read_int(std::string_view& text) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

// The length of a bracketed list at the front of `text` ("[...]" with
// balanced brackets and no other brackets inside the innermost), or 0.
size_t bracket_length(std::string_view text) {
  if (text.empty() || text.front() != '[') return 0;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth == 0) return i + 1;
  }
  return 0;
}

// Parses torch's tail (", seq = 3, op_id = 7, sizes = [[1]]") into `out`;
// false unless all of `tail` is one, each part in torch's order. With
// `cut_allowed` (the text is as long as the agent's limit), a tail the
// agent cut also reads: whole parts, then the text ends inside a list or a
// part's name (`out.cut`).
bool parse_tail(std::string_view tail, TorchRange& out, bool cut_allowed) {
  enum Part { kSeq, kOpId, kSizes, kInputOpIds, kEnd };
  int next = kSeq;  // parts come in this order, each at most once
  bool any = false;
  // The text ends inside what could be a part: a cut tail, if allowed.
  auto ends_here = [&] {
    out.cut = cut_allowed;
    return out.cut;
  };
  while (!tail.empty()) {
    if (!starts_with(tail, ", ")) return starts_with(", ", tail) && ends_here();
    tail.remove_prefix(2);
    auto field = [&](std::string_view name) {
      for (std::string_view sep : {" = ", "="})
        if (starts_with(tail, name) && starts_with(tail.substr(name.size()), sep)) {
          tail.remove_prefix(name.size() + sep.size());
          return true;
        }
      return false;
    };
    const bool stashed = next <= kSeq && field("stashed seq");
    if (stashed || (next <= kSeq && field("seq"))) {
      out.stashed_seq = stashed;
      if (tail.empty()) return ends_here();
      const auto seq = read_int<int64_t>(tail);
      if (!seq) return false;
      out.seq = *seq;
      next = kOpId;
    } else if (next <= kOpId && field("op_id")) {
      if (tail.empty()) return ends_here();
      const auto id = read_int<uint64_t>(tail);
      if (!id) return false;
      out.op_id = *id;
      next = kSizes;
    } else if (next <= kSizes && field("sizes")) {
      const size_t n = bracket_length(tail);
      if (tail.empty() || (n == 0 && starts_with(tail, "["))) return ends_here();
      if (n == 0 || !parse_torch_sizes(tail.substr(0, n))) return false;
      out.sizes = std::string(tail.substr(0, n));
      tail.remove_prefix(n);
      next = kInputOpIds;
    } else if (next <= kInputOpIds && field("input_op_ids")) {
      const size_t close = tail.find(']');
      if (tail.empty() || (starts_with(tail, "[") && close == std::string_view::npos)) return ends_here();
      if (tail.empty() || tail.front() != '[' || close == std::string_view::npos) return false;
      out.input_op_ids = std::string(tail.substr(0, close + 1));
      tail.remove_prefix(close + 1);
      next = kEnd;
    } else {
      // Cut inside the next part's name ("sizes = " cut to "siz").
      for (std::string_view name : {"seq = ", "op_id = ", "sizes = ", "input_op_ids = "})
        if (tail.size() < name.size() && starts_with(name, tail)) return ends_here();
      return false;
    }
    any = true;
  }
  return any;
}

// "AddmmBackward0", "MulBackward", "autograd::engine::evaluate_function:
// AddmmBackward0": autograd nodes, whose seq ties them to a forward op.
bool is_backward_name(std::string_view name) {
  if (starts_with(name, "autograd::engine::evaluate_function: ")) return true;
  while (!name.empty() && std::isdigit(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);
  return ends_with(name, "Backward");
}

// record_function scopes torch opens itself; a user's record_function
// under emit_nvtx is told apart by its tail (kAnnotation below).
bool is_torch_scope(std::string_view name) {
  return starts_with(name, "ProfilerStep#") || starts_with(name, "Optimizer.") ||
         starts_with(name, "enumerate(DataLoader)#") || starts_with(name, "Optimizer.zero_grad#");
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> parse_torch_sizes(std::string_view text) {
  std::vector<std::vector<int64_t>> shapes;
  if (!starts_with(text, "[") || !ends_with(text, "]")) return std::nullopt;
  text = text.substr(1, text.size() - 2);
  while (!text.empty()) {
    if (text.front() != '[') return std::nullopt;
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view dims = text.substr(1, close - 1);
    shapes.emplace_back();
    while (!dims.empty()) {
      const auto dim = read_int<int64_t>(dims);
      if (!dim) return std::nullopt;
      shapes.back().push_back(*dim);
      if (dims.empty()) break;
      if (!starts_with(dims, ", ")) return std::nullopt;
      dims.remove_prefix(2);
      if (dims.empty()) return std::nullopt;
    }
    text.remove_prefix(close + 1);
    if (text.empty()) break;
    if (!starts_with(text, ", ")) return std::nullopt;
    text.remove_prefix(2);
    if (text.empty()) return std::nullopt;
  }
  return shapes;
}

TorchRange parse_torch_range(std::string_view text) {
  TorchRange out;
  // The earliest ", " from which the rest is a whole tail: a name may hold
  // ", " itself, a tail never holds a name.
  // Failing that, for a text as long as the agent's limit, the earliest
  // from which the rest is a tail the agent cut (kAgentMessageLimit: a list
  // argument's shapes run to kilobytes).
  bool tail = false;
  const bool may_be_cut = text.size() >= kAgentMessageLimit;
  for (const bool cut_allowed : {false, true}) {
    if (cut_allowed && !may_be_cut) break;
    for (size_t at = text.find(", "); at != std::string_view::npos && !tail; at = text.find(", ", at + 1)) {
      TorchRange parsed;
      if (parse_tail(text.substr(at), parsed, cut_allowed)) {
        out = std::move(parsed);
        out.name = std::string(text.substr(0, at));
        tail = true;
      }
    }
    if (tail) break;
  }
  if (out.cut) out.sizes.reset();  // what was cut from them is unknown
  if (!tail) out.name = std::string(text);
  const std::string_view name = out.name;
  out.backward = is_backward_name(name);
  if (starts_with(name, "nn.Module: ")) out.kind = TorchRangeKind::kModule;
  else if (is_torch_scope(name)) out.kind = TorchRangeKind::kAnnotation;
  else if (name.find("::") != std::string_view::npos || (tail && out.backward)) out.kind = TorchRangeKind::kOperator;
  else if (tail) out.kind = TorchRangeKind::kAnnotation;  // a user's record_function under emit_nvtx
  if (tail && out.kind == TorchRangeKind::kOperator && name.empty()) out.name = "[unnamed operator]";
  return out;
}

std::string merged_counter_name(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == name.size()) return std::string(name);
  for (size_t i = hash + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
  return std::string(name.substr(0, hash)) + "*";
}

TorchRanges::TorchRanges(const Run& run) {
  ranges_.reserve(run.name_count());
  for (NameId id = 0; id < run.name_count(); ++id) {
    ranges_.push_back(parse_torch_range(run.name(id)));
    if (ranges_.back().kind == TorchRangeKind::kOperator) any_operator_ = true;
  }
}

}  // namespace prof::analyzer
