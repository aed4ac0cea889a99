#include "views/cpu_start_order.h"

#include <algorithm>
#include <utility>

namespace prof::analyzer {
namespace {

// Sorts each stretch of equal starts by index (a parent and a child that
// start together come parent first from the links); false when the order
// is not by start at all.
bool ties_by_index(const EventTable<CpuEvent>& events, ThreadStartOrder& order) {
  for (size_t k = 0; k < order.size();) {
    const uint64_t start = events[order[k]].start_ns;
    size_t tie_end = k + 1;
    while (tie_end < order.size() && events[order[tie_end]].start_ns == start) ++tie_end;
    if (tie_end < order.size() && events[order[tie_end]].start_ns < start) return false;
    if (tie_end - k > 1) std::sort(order.begin() + static_cast<long>(k), order.begin() + static_cast<long>(tie_end));
    k = tie_end;
  }
  return true;
}

}  // namespace

// The end order reversed, `order`, put in start order. Walked backwards
// it is the end order, children before their parent, where a subtree is
// the stretch that ends at its root; in the start order the subtree is the
// same stretch shifted right by one per ancestor (each comes before it),
// its root first. So an event whose subtree of `size` events ends at place
// k of the end order, under `depth` ancestors, goes to place
// k + 1 - size + depth. The sizes are summed in a walk of the end order
// (on a stack of the ancestors of the event at hand that have a child
// done: each pushed when its first child ends, popped when it ends
// itself), the depths in a walk the other way (on a stack of the open
// ancestors); both stacks as deep as the thread's nesting. False when the
// places are not one per event (not a properly nested thread in end order).
bool start_order_of_end_order(const RangeParents& links, const uint32_t* order, size_t count,
                              ThreadStartOrder& out) {
  MappedVector<uint32_t> sizes(count);  // by place in the end order
  std::vector<std::pair<int64_t, size_t>> done;  // (ancestor, its children's subtrees' sizes so far)
  for (size_t k = 0; k < count; ++k) {
    const uint32_t event = order[count - 1 - k];
    size_t size = 1;
    if (!done.empty() && done.back().first == event) {
      size += done.back().second;
      done.pop_back();
    }
    if (size > k + 1) return false;
    sizes[k] = static_cast<uint32_t>(size);
    const int64_t parent = links.parent(event);
    if (parent == RangeParents::kNoParent) continue;
    if (done.empty() || done.back().first != parent) done.push_back({parent, 0});
    done.back().second += size;
  }
  if (!done.empty()) return false;
  constexpr uint32_t kEmpty = UINT32_MAX;
  out.assign(count, kEmpty);
  std::vector<int64_t> open;  // the ancestors of the event at hand
  for (size_t k = count; k-- > 0;) {
    const uint32_t event = order[count - 1 - k];
    const int64_t parent = links.parent(event);
    while (!open.empty() && open.back() != parent) open.pop_back();
    const size_t place = k + 1 - sizes[k] + open.size();
    if (place >= count || out[place] != kEmpty) return false;
    out[place] = event;
    open.push_back(event);
  }
  return true;
}

ThreadStartOrder thread_start_order(const EventTable<CpuEvent>& events, const RangeParents& links,
                                    const uint32_t* order, size_t count) {
  ThreadStartOrder out;
  const bool by_start = std::is_sorted(order, order + count, [&](uint32_t a, uint32_t b) {
    return events[a].start_ns < events[b].start_ns;
  });
  if (by_start) out.assign(order, order + count);
  if ((by_start || start_order_of_end_order(links, order, count, out)) && ties_by_index(events, out)) return out;
  // Neither: sorted, as trace did before.
  out.assign(order, order + count);
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
    return std::pair{events[a].start_ns, a} < std::pair{events[b].start_ns, b};
  });
  return out;
}

RangeParents::ThreadOrder CpuStartOrder::collector(const EventTable<CpuEvent>& events) {
  return [this, &events](const RangeParents& links, const uint32_t* order, size_t count) {
    ThreadStartOrder thread = thread_start_order(events, links, order, count);
    const std::lock_guard lock(mutex_);
    threads_.push_back(std::move(thread));
  };
}

}  // namespace prof::analyzer
