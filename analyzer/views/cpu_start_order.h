#pragma once
// The CPU events' start order made of the parent links' per-thread orders
// (model/range_tree.h's each_thread) where trace sorted a (start, index) key
// per event (6.75M at 10M events, the longest part of its work before the
// first event). A thread's nesting events come from the links in an order
// with every parent before its children: their start order already, or
// their end order reversed, which for a properly nested thread is its
// start order cut differently: a subtree is one stretch of either, the
// root last in the end order and first in the start order. So each
// thread's start order takes one walk, and the threads' orders are merged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "huge_page_allocator.h"
#include "model/range_tree.h"
#include "model/run.h"
#include "views/start_order.h"

namespace prof::analyzer {

// A large one in a mapping of its own, unmapped when freed: these live only
// until merged, and from the heap their pages stayed resident through the
// writing (trace's peak RSS +27 MB at 10M events).
template <typename T>
using MappedVector = std::vector<T, HugePageAllocator<T, OwnMappings>>;
using ThreadStartOrder = MappedVector<uint32_t>;

// `order`, a thread's nesting events in end order reversed (as the links'
// walk gives them), put in start order (by start, the longer first) in
// `out`; false when it is not the reversed end order of a properly
// nested thread.
bool start_order_of_end_order(const RangeParents& links, const uint32_t* order, size_t count, ThreadStartOrder& out);

// One thread's nesting events, given in `order` (count of them, every
// parent before its children by `links`), by (start, index).
ThreadStartOrder thread_start_order(const EventTable<CpuEvent>& events, const RangeParents& links,
                                    const uint32_t* order, size_t count);

class CpuStartOrder {
 public:
  // For RangeParents' each_thread on `events` (the links' run's): keeps
  // each thread's start order, made on the linking threads, several at once.
  RangeParents::ThreadOrder collector(const EventTable<CpuEvent>& events);

  // The order of the events with keep(i): the threads' orders kept so far
  // merged with the start/end ranges (which nest in no thread). Once: the
  // threads' orders are given up.
  template <typename Keep>
  StartOrder take(const EventTable<CpuEvent>& events, Keep keep) {
    std::vector<SortedRun> runs;
    size_t nesting = 0;
    for (ThreadStartOrder& thread : threads_) {
      nesting += thread.size();
      thread.erase(std::remove_if(thread.begin(), thread.end(), [&](uint32_t i) { return !keep(i); }), thread.end());
      runs.push_back({thread.data(), 0, thread.size()});
    }
    std::vector<uint32_t> unnested;  // the start/end ranges, in file order: by index
    if (nesting < events.size())  // else none: a pass over every event spared
      for (size_t i = 0; i < events.size(); ++i)
        if (events[i].kind == CpuEventKind::kStartEndRange && keep(i)) unnested.push_back(static_cast<uint32_t>(i));
    std::stable_sort(unnested.begin(), unnested.end(),
                     [&](uint32_t a, uint32_t b) { return events[a].start_ns < events[b].start_ns; });
    runs.push_back({unnested.data(), 0, unnested.size()});
    StartOrder order = StartOrder::merged(runs, [&](size_t i) { return events[i].start_ns; });
    threads_.clear();
    threads_.shrink_to_fit();
    return order;
  }

 private:
  std::mutex mutex_;  // guards threads_ while the links are made
  std::vector<ThreadStartOrder> threads_;
};

}  // namespace prof::analyzer
