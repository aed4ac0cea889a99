#pragma once
// One table's events in the order trace writes them: by start time, then by
// index (the table's order for equal starts). trace merges one such order
// per table as it writes, where it once sorted a 16-byte item per event of
// every table together (160 MB at 10M events, held while writing); an order
// is 4 bytes per event, and none at all for a table already in order.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <tuple>
#include <utility>
#include <vector>

namespace prof::analyzer {

// Part of a table in start order already: `size` indices, those of
// `indices` or, without them, first, first + 1, ...
struct SortedRun {
  const uint32_t* indices = nullptr;
  uint32_t first = 0;
  size_t size = 0;
  uint32_t operator[](size_t k) const { return indices ? indices[k] : first + static_cast<uint32_t>(k); }
};

class StartOrder {
 public:
  StartOrder() = default;

  // The indices i < count with keep(i), ordered by (start(i), i).
  template <typename Keep, typename Start>
  StartOrder(size_t count, Keep keep, Start start) {
    bool all_kept_in_order = true;
    size_t kept = 0;
    uint64_t first = UINT64_MAX, last = 0, previous = 0;
    for (size_t i = 0; i < count; ++i) {
      if (!keep(i)) {
        all_kept_in_order = false;
        continue;
      }
      const uint64_t s = start(i);
      if (kept > 0 && s < previous) all_kept_in_order = false;
      previous = s;
      first = std::min(first, s);
      last = std::max(last, s);
      ++kept;
    }
    size_ = kept;
    if (all_kept_in_order) return;  // the identity: no indices held
    // (start - first, index) packed into 64 bits when both fit (a span of
    // 2^41 ns, 36 minutes, beside 2^23 events), else (start, index) pairs.
    const int index_bits = std::max(1, static_cast<int>(std::bit_width(count - 1)));
    if (index_bits < 64 && (last - first) >> (64 - index_bits) == 0)
      sort_packed(count, keep, start, first, index_bits);
    else
      sort_pairs(count, keep, start);
  }

  // The same order of the events given as runs that are each in start
  // order (each index in one run at most): merged, not sorted. A stream's
  // GPU work and its annotations come so, a few streams of millions of
  // events, whose sort took as long again as making them, and a thread's
  // CPU events (cpu_start_order.h). A run out of start order makes it a
  // sort of them all.
  template <typename Start>
  static StartOrder merged(const std::vector<SortedRun>& runs, Start start) {
    // Equal starts in a run with the larger index first: the merge, by
    // (start, index), leaves those for a pass after it.
    bool ties_out_of_order = false;
    size_t count = 0;
    for (const SortedRun& run : runs) {
      count += run.size;
      for (size_t k = 1; k < run.size; ++k) {
        const uint64_t before = start(run[k - 1]), s = start(run[k]);
        if (s < before) return sorted_runs(runs, start);
        if (s == before && run[k] < run[k - 1]) ties_out_of_order = true;
      }
    }
    StartOrder order;
    order.indices_.reset(static_cast<uint32_t*>(allocate(count * sizeof(uint32_t))));
    uint32_t* out = order.indices_.get();
    // The runs' heads, the earliest (start, index) on top.
    struct Head {
      uint64_t start = 0;
      uint32_t index = 0;
      uint32_t run = 0;
      size_t next = 0;  // the run's next position
    };
    auto later = [](const Head& a, const Head& b) { return std::tie(a.start, a.index) > std::tie(b.start, b.index); };
    std::vector<Head> heads;
    for (size_t r = 0; r < runs.size(); ++r)
      if (runs[r].size != 0) heads.push_back({start(runs[r][0]), runs[r][0], static_cast<uint32_t>(r), 1});
    std::make_heap(heads.begin(), heads.end(), later);
    size_t n = 0;
    while (!heads.empty()) {
      std::pop_heap(heads.begin(), heads.end(), later);
      const Head head = heads.back();
      heads.pop_back();
      out[n++] = head.index;
      // The run's next events go straight out while they come before every
      // other run's head: a stream's work mostly comes in stretches.
      const SortedRun& run = runs[head.run];
      for (size_t next = head.next; next < run.size; ++next) {
        const uint32_t index = run[next];
        const uint64_t s = start(index);
        if (!heads.empty() && std::tie(heads.front().start, heads.front().index) < std::tie(s, index)) {
          heads.push_back({s, index, head.run, next + 1});
          std::push_heap(heads.begin(), heads.end(), later);
          break;
        }
        out[n++] = index;
      }
    }
    order.size_ = n;
    if (ties_out_of_order)
      for (size_t k = 0; k < n;) {
        size_t group_end = k + 1;
        while (group_end < n && start(out[group_end]) == start(out[k])) ++group_end;
        std::sort(out + k, out + group_end);
        k = group_end;
      }
    bool identity = true;
    for (size_t k = 0; k < n && identity; ++k) identity = out[k] == k;
    if (identity) order.indices_.reset();  // already in order: no indices held, as the constructor's
    return order;
  }

  // Puts the whole table this order is of (every event kept) in its
  // order, in place, the indices serving as the moves' scratch: the order is
  // then the identity and holds nothing (trace's annotations, 13 MB of
  // indices at 10M events held while writing otherwise).
  template <typename T>
  void arrange(std::vector<T>& table) {
    if (!indices_) return;
    uint32_t* order = indices_.get();
    // Each cycle of the permutation in turn: slot k takes the event at
    // order[k], whose slot takes the one at its order, ... back to k.
    for (size_t k = 0; k < size_; ++k) {
      if (order[k] == k) continue;
      T first = std::move(table[k]);
      size_t to = k;
      while (order[to] != k) {
        const size_t from = order[to];
        table[to] = std::move(table[from]);
        order[to] = static_cast<uint32_t>(to);
        to = from;
      }
      table[to] = std::move(first);
      order[to] = static_cast<uint32_t>(to);
    }
    indices_.reset();
  }

  size_t size() const { return size_; }
  // The k-th event's index in its table.
  uint32_t operator[](size_t k) const { return indices_ ? indices_.get()[k] : static_cast<uint32_t>(k); }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  // malloc'd, so that sort_packed can give back the half it no longer needs.
  using Indices = std::unique_ptr<uint32_t[], Free>;

  static void* allocate(size_t bytes) {
    void* p = std::malloc(std::max<size_t>(bytes, 1));
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }

  // The keys are sorted in a buffer of 8 bytes per kept event; the indices
  // are then written over its first half (index k at byte 4k, never past
  // key k, which is read first) and the second half handed back by
  // realloc. A separate index list beside the keys held 12 bytes per event
  // while it was filled: at 10M events 81 MB, trace's peak, where this
  // holds 54 MB, then 27. (A buffer that large is mmapped by glibc, and
  // its realloc shrinks it with mremap: the tail's pages go back.)
  template <typename Keep, typename Start>
  void sort_packed(size_t count, Keep keep, Start start, uint64_t first, int index_bits) {
    auto* keys = static_cast<uint64_t*>(allocate(size_ * sizeof(uint64_t)));
    size_t n = 0;
    for (size_t i = 0; i < count; ++i)
      if (keep(i)) keys[n++] = ((start(i) - first) << index_bits) | i;
    std::sort(keys, keys + n);
    const uint64_t mask = (uint64_t{1} << index_bits) - 1;
    auto* bytes = reinterpret_cast<unsigned char*>(keys);
    for (size_t k = 0; k < n; ++k) {
      // Through memcpy: the same bytes are read as a key and written as an
      // index.
      uint64_t key = 0;
      std::memcpy(&key, bytes + k * sizeof(uint64_t), sizeof key);
      const auto index = static_cast<uint32_t>(key & mask);
      std::memcpy(bytes + k * sizeof(uint32_t), &index, sizeof index);
    }
    void* shrunk = std::realloc(keys, std::max<size_t>(n * sizeof(uint32_t), 1));
    indices_.reset(static_cast<uint32_t*>(shrunk != nullptr ? shrunk : keys));
  }

  // merged()'s answer for runs that are not in start order.
  template <typename Start>
  static StartOrder sorted_runs(const std::vector<SortedRun>& runs, Start start) {
    std::vector<std::pair<uint64_t, uint32_t>> keys;
    for (const SortedRun& run : runs)
      for (size_t k = 0; k < run.size; ++k) keys.push_back({start(run[k]), run[k]});
    std::sort(keys.begin(), keys.end());
    StartOrder order;
    order.size_ = keys.size();
    order.indices_.reset(static_cast<uint32_t*>(allocate(keys.size() * sizeof(uint32_t))));
    for (size_t k = 0; k < keys.size(); ++k) order.indices_.get()[k] = keys[k].second;
    return order;
  }

  template <typename Keep, typename Start>
  void sort_pairs(size_t count, Keep keep, Start start) {
    std::vector<std::pair<uint64_t, uint32_t>> keys;
    keys.reserve(size_);
    for (size_t i = 0; i < count; ++i)
      if (keep(i)) keys.push_back({start(i), static_cast<uint32_t>(i)});
    std::sort(keys.begin(), keys.end());
    indices_.reset(static_cast<uint32_t*>(allocate(keys.size() * sizeof(uint32_t))));
    for (size_t k = 0; k < keys.size(); ++k) indices_.get()[k] = keys[k].second;
  }

  size_t size_ = 0;
  Indices indices_;  // null: the identity (every event kept, already in order)
};

}  // namespace prof::analyzer
