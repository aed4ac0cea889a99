#include "record/nvtx_ranges.h"

namespace prof {

ClosedRange NvtxRangeAssembler::make_range(const OpenRange& open, file::NvtxRange::Style style,
                                           uint32_t end_tid, uint64_t end_ns, uint32_t depth) {
  ClosedRange closed;
  file::NvtxRange& range = closed.range;
  range.tid = open.tid;
  range.end_tid = end_tid;
  range.domain_id = open.begin.domain_id;
  range.name_id = open.begin.name_id;
  closed.span = {open.begin.time_ns, end_ns};
  range.style = style;
  range.color_argb = open.begin.color_argb;
  range.category = open.begin.category;
  range.depth = depth;
  return closed;
}

std::vector<NvtxRangeAssembler::OpenRange>& NvtxRangeAssembler::stack_of(uint32_t tid,
                                                                        uint64_t domain_id) {
  // Pushes and pops come in runs of one thread and domain (the writer drains
  // one thread's buffer at a time): remember the last stack rather than hash
  // the key twice per range. unordered_map never moves its values.
  const StackKey key{tid, domain_id};
  if (last_stack_ == nullptr || !(last_key_ == key)) {
    last_key_ = key;
    last_stack_ = &stacks_[key];
  }
  return *last_stack_;
}

void NvtxRangeAssembler::push(uint32_t tid, const Begin& begin) {
  stack_of(tid, begin.domain_id).push_back({begin, tid});
}

bool NvtxRangeAssembler::pop(uint32_t tid, uint64_t domain_id, uint64_t time_ns,
                             ClosedRange& closed) {
  std::vector<OpenRange>& stack = stack_of(tid, domain_id);
  if (stack.empty()) return false;
  const auto depth = static_cast<uint32_t>(stack.size() - 1);
  closed = make_range(stack.back(), file::NvtxRange::Style::push_pop, tid, time_ns, depth);
  stack.pop_back();
  return true;
}

void NvtxRangeAssembler::start(uint64_t range_id, uint32_t tid, const Begin& begin) {
  started_[range_id] = {begin, tid};
}

bool NvtxRangeAssembler::end(uint64_t range_id, uint32_t tid, uint64_t time_ns,
                             ClosedRange& closed) {
  auto found = started_.find(range_id);
  if (found == started_.end()) return false;
  closed = make_range(found->second, file::NvtxRange::Style::start_end, tid, time_ns, 0);
  started_.erase(found);
  return true;
}

std::vector<ClosedRange> NvtxRangeAssembler::close_all(uint64_t end_ns) {
  std::vector<ClosedRange> closed;
  for (auto& [key, stack] : stacks_) {
    for (size_t depth = 0; depth < stack.size(); ++depth) {
      closed.push_back(make_range(stack[depth], file::NvtxRange::Style::push_pop, key.tid, end_ns,
                                  static_cast<uint32_t>(depth)));
      closed.back().range.unterminated = true;
    }
  }
  for (auto& [id, open] : started_) {
    closed.push_back(make_range(open, file::NvtxRange::Style::start_end, open.tid, end_ns, 0));
    closed.back().range.unterminated = true;
  }
  stacks_.clear();
  last_stack_ = nullptr;
  started_.clear();
  return closed;
}

size_t NvtxRangeAssembler::open_count() const {
  size_t count = started_.size();
  for (const auto& [key, stack] : stacks_) count += stack.size();
  return count;
}

}  // namespace prof
