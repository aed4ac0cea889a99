#include "model/range_tree.h"

#include "model/cores.h"
#include "model/end_order_parents.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>
#include <system_error>
#include <thread>
#include <utility>

namespace prof::analyzer {
namespace {

// The events that nest (push/pop ranges and API calls), grouped by thread
// (process, tid): tids repeat across processes. One index array cut into
// per-thread runs, in file order within each thread.
struct ThreadEvents {
  HugeVector<uint32_t> events;
  std::vector<size_t> begin;  // thread t's events are [begin[t], begin[t + 1])
};

ThreadEvents by_thread(const EventTable<CpuEvent>& events) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> slot_of;  // few threads: a map is fine
  std::vector<size_t> count;
  // Each event's thread slot, found twice (to count, then to place) rather
  // than kept: a 4-byte table per event was, beside the index array and the
  // parent links, the linking's largest moment. Consecutive events are
  // mostly of one thread: the map is skipped for those.
  auto each_slot = [&](auto&& visit) {
    std::pair<uint32_t, uint32_t> last{UINT32_MAX, UINT32_MAX};
    uint32_t last_slot = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const CpuEvent& e = events[i];
      if (e.kind == CpuEventKind::kStartEndRange) continue;
      const std::pair<uint32_t, uint32_t> thread{e.process, e.tid};
      if (thread != last) {
        auto [it, added] = slot_of.try_emplace(thread, static_cast<uint32_t>(count.size()));
        if (added) count.push_back(0);
        last = thread;
        last_slot = it->second;
      }
      visit(i, last_slot);
    }
  };
  each_slot([&](size_t, uint32_t slot) { ++count[slot]; });
  ThreadEvents out;
  out.begin.assign(count.size() + 1, 0);
  for (size_t t = 0; t < count.size(); ++t) out.begin[t + 1] = out.begin[t] + count[t];
  out.events.resize(out.begin.back());
  std::vector<size_t> next(out.begin.begin(), out.begin.end() - 1);
  each_slot([&](size_t i, uint32_t slot) { out.events[next[slot]++] = static_cast<uint32_t>(i); });
  return out;
}

}  // namespace

RangeParents::RangeParents(const Run& run, const ThreadOrder& each_thread, unsigned jobs) {
  const auto& events = run.cpu_events;
  parent_.assign(events.size(), kNone);
  ThreadEvents threads = by_thread(events);
  // (start, end, index) copied out of the events, so the sort compares
  // neighbours in memory rather than chasing indices into the event table.
  struct Interval {
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t index;
  };
  const size_t thread_count = threads.begin.size() - 1;
  auto size_of = [&](size_t t) { return threads.begin[t + 1] - threads.begin[t]; };
  size_t longest = 0;
  for (size_t t = 0; t < thread_count; ++t) longest = std::max(longest, size_of(t));
  // One thread's links; `order` and `open` are the caller's scratch space.
  auto link_thread = [&](size_t t, HugeVector<Interval>& order, std::vector<uint32_t>& open) {
    // Most threads, the agent's files written in end order, need no sort
    // (end_order_parents.h); their reversed end order has every parent
    // before its children, as the sorted order has.
    uint32_t* thread_events = threads.events.data() + threads.begin[t];
    const size_t count = size_of(t);
    if (parents_in_end_order(events, thread_events, count, parent_.data(), open)) {
      if (each_thread) {
        std::reverse(thread_events, thread_events + count);
        each_thread(*this, thread_events, count);
      }
      return;
    }
    for (size_t k = 0; k < count; ++k) parent_[thread_events[k]] = kNone;
    // Sized once for the longest thread: grown by doubling, the old and new
    // buffers of a run's main thread were together its largest table.
    if (order.capacity() == 0) order.reserve(longest);
    order.clear();
    for (size_t k = 0; k < count; ++k) {
      const uint32_t i = thread_events[k];
      order.push_back({events[i].start_ns, events[i].end_ns, i});
    }
    // By start, the longer first; equal intervals keep file order (index),
    // so the first becomes the parent.
    std::sort(order.begin(), order.end(), [](const Interval& a, const Interval& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
      return a.index < b.index;
    });
    open.clear();
    for (const Interval& event : order) {
      while (!open.empty()) {
        const CpuEvent& candidate = events[open.back()];
        if (event.start_ns >= candidate.end_ns || event.end_ns > candidate.end_ns) {
          open.pop_back();
        } else {
          parent_[event.index] = open.back();
          break;
        }
      }
      open.push_back(event.index);
    }
    if (each_thread) {
      // The thread's slice of the index array, now in this order.
      for (size_t k = 0; k < order.size(); ++k) thread_events[k] = order[k].index;
      each_thread(*this, thread_events, count);
    }
  };

  // Threads link on their own (an event's parent is of its thread, and so
  // is every figure each_thread writes), so several link at once, the
  // largest first. Small runs stay on this thread: starting one costs more.
  // Each worker sorts in a buffer of its own, so a run of sorted threads
  // holds one (start, end, index) copy of the longest thread per worker.
  const size_t cores = cores_for(jobs);
  const size_t workers = events.size() < kEventsForHelpers ? 1 : std::min(cores, thread_count);
  std::vector<size_t> largest_first(thread_count);
  std::iota(largest_first.begin(), largest_first.end(), size_t{0});
  std::stable_sort(largest_first.begin(), largest_first.end(), [&](size_t a, size_t b) { return size_of(a) > size_of(b); });
  std::atomic<size_t> next{0};
  // Relaxed: the counter only hands out thread numbers; join() makes each
  // worker's links and figures visible here.
  auto work = [&] {
    HugeVector<Interval> order;
    std::vector<uint32_t> open;
    for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < thread_count;)
      link_thread(largest_first[k], order, open);
  };
  std::vector<std::thread> helpers;
  try {
    for (size_t w = 1; w < workers; ++w) helpers.emplace_back(work);
  } catch (const std::system_error&) {
    // No thread to be had: the ones started and this one link them all.
  }
  work();
  for (std::thread& helper : helpers) helper.join();
}

RangeTree::RangeTree(const Run& run, HugeVector<uint64_t>* launched_gpu_ns, unsigned jobs) {
  const auto& events = run.cpu_events;
  RangeFigures& f = figures_;
  const size_t n = events.size();
  if (launched_gpu_ns && launched_gpu_ns->size() == n) {
    f.self_gpu_ns = std::move(*launched_gpu_ns);
    *launched_gpu_ns = {};
  } else {
    f.self_gpu_ns.assign(n, 0);
    for (size_t i = 0; i < run.launched_gpu_ns.size(); ++i) f.self_gpu_ns[i] += run.launched_gpu_ns[i];
  }
  for (const GpuActivity& g : run.gpu_activities)
    if (g.launched_by >= 0) f.self_gpu_ns[static_cast<size_t>(g.launched_by)] += g.duration_ns();
  TensorMemoryUsage tensors = tensor_memory_usage(run);
  tensor_memory_outside_ = tensors.outside;
  if (!run.memory_events.empty() || tensors.device || tensors.host) {
    f.self_cuda_mem_bytes.assign(n, 0);
    f.self_cpu_mem_bytes.assign(n, 0);
    for (const MemoryEvent& m : run.memory_events)
      if (m.called_by >= 0 && !(m.on_device ? tensors.device : tensors.host))
        (m.on_device ? f.self_cuda_mem_bytes : f.self_cpu_mem_bytes)[static_cast<size_t>(m.called_by)] += m.signed_bytes();
    // Segments: self first, totals summed up the tree below. Tensors: the
    // totals are known, self is found below by taking the children's out.
    if (tensors.device) f.self_cuda_mem_bytes.assign(tensors.device_bytes.begin(), tensors.device_bytes.end());
    if (tensors.host) f.self_cpu_mem_bytes.assign(tensors.host_bytes.begin(), tensors.host_bytes.end());
    cuda_mem_ = f.self_cuda_mem_bytes;
    cpu_mem_ = f.self_cpu_mem_bytes;
  }
  const bool memory = !cuda_mem_.empty();
  const bool device_totals_known = tensors.device;
  const bool host_totals_known = tensors.host;

  // Totals up the tree, per thread as it is linked: children come after
  // their parent in its order, so a reverse walk finishes every child's
  // GPU total before adding it to its parent.
  f.gpu_total_ns = f.self_gpu_ns;
  parents_ = RangeParents(run, [&](const RangeParents& links, const uint32_t* order, size_t count) {
    for (size_t k = count; k-- > 0;) {
      const size_t i = order[k];
      const int64_t parent = links.parent(i);
      if (parent == kNoParent) continue;
      const auto p = static_cast<size_t>(parent);
      f.gpu_total_ns[p] += f.gpu_total_ns[i];
      if (memory) {
        if (device_totals_known) f.self_cuda_mem_bytes[p] -= cuda_mem_[i];
        else cuda_mem_[p] += cuda_mem_[i];
        if (host_totals_known) f.self_cpu_mem_bytes[p] -= cpu_mem_[i];
        else cpu_mem_[p] += cpu_mem_[i];
      }
    }
  }, jobs);

  f.self_ns = self_times(run, parents_);
}

HugeVector<uint64_t> self_times(const Run& run, const RangeParents& parents) {
  // Self time needs no order: the children's time is summed into the table
  // first, then subtracted. RangeTree allocates it only after the linking's
  // index array is freed, so the two are never held together.
  const auto& events = run.cpu_events;
  const size_t n = events.size();
  HugeVector<uint64_t> self_ns(n, 0);
  HugeVector<uint64_t>& children_ns = self_ns;
  for (size_t i = 0; i < n; ++i) {
    const int64_t parent = parents.parent(i);
    if (parent != RangeParents::kNoParent) children_ns[static_cast<size_t>(parent)] += events[i].duration_ns();
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t total = events[i].duration_ns();
    self_ns[i] = children_ns[i] > total ? 0 : total - children_ns[i];
  }
  return self_ns;
}

}  // namespace prof::analyzer
