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
#include <utility>
#include <vector>

namespace prof::analyzer {

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
    indices_.reserve(kept);
    // Sorting (start - first, index) packed into 64 bits when both fit (a
    // span of 2^41 ns, 36 minutes, beside 2^23 events) needs 8 bytes per
    // event while sorting; a pair takes 16.
    const int index_bits = std::max(1, static_cast<int>(std::bit_width(count - 1)));
    if (index_bits < 64 && (last - first) >> (64 - index_bits) == 0) {
      std::vector<uint64_t> keys;
      keys.reserve(kept);
      for (size_t i = 0; i < count; ++i)
        if (keep(i)) keys.push_back(((start(i) - first) << index_bits) | i);
      std::sort(keys.begin(), keys.end());
      const uint64_t mask = (uint64_t{1} << index_bits) - 1;
      for (uint64_t key : keys) indices_.push_back(static_cast<uint32_t>(key & mask));
    } else {
      std::vector<std::pair<uint64_t, uint32_t>> keys;
      keys.reserve(kept);
      for (size_t i = 0; i < count; ++i)
        if (keep(i)) keys.push_back({start(i), static_cast<uint32_t>(i)});
      std::sort(keys.begin(), keys.end());
      for (const auto& key : keys) indices_.push_back(key.second);
    }
  }

  size_t size() const { return size_; }
  // The k-th event's index in its table.
  uint32_t operator[](size_t k) const { return indices_.empty() ? static_cast<uint32_t>(k) : indices_[k]; }

 private:
  size_t size_ = 0;
  std::vector<uint32_t> indices_;  // empty: the identity (every event kept, already in order)
};

}  // namespace prof::analyzer
