#pragma once
// Pairs NVTX begin and end events into complete ranges on the writer thread,
// so that app threads only append events. Push/pop ranges nest per thread and
// per domain (NVTX keeps one stack for each); start/end ranges pair by id and
// may end on another thread.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "encode/chunk_encoder.h"

namespace prof {

// A range whose end was seen, as the encoder takes it.
struct ClosedRange {
  file::NvtxRange range;
  Span span;
};

class NvtxRangeAssembler {
 public:
  struct Begin {
    uint64_t domain_id = 0;
    uint64_t name_id = 0;
    uint64_t time_ns = 0;
    uint32_t color_argb = 0;
    uint32_t category = 0;
  };

  void push(uint32_t tid, const Begin& begin);
  // Returns the closed range, or false for a pop with no open range (the app
  // popped more than it pushed, which NVTX reports as an error to it too).
  bool pop(uint32_t tid, uint64_t domain_id, uint64_t time_ns, ClosedRange& closed);

  void start(uint64_t range_id, uint32_t tid, const Begin& begin);
  bool end(uint64_t range_id, uint32_t tid, uint64_t time_ns, ClosedRange& closed);

  // Every range still open, closed at `end_ns` and marked unterminated.
  std::vector<ClosedRange> close_all(uint64_t end_ns);

  size_t open_count() const;

 private:
  struct StackKey {
    uint32_t tid;
    uint64_t domain_id;
    bool operator==(const StackKey&) const = default;
  };
  struct StackKeyHash {
    size_t operator()(const StackKey& k) const { return k.domain_id * 0x9E3779B97F4A7C15u ^ k.tid; }
  };
  struct OpenRange {
    Begin begin;
    uint32_t tid;
  };

  std::vector<OpenRange>& stack_of(uint32_t tid, uint64_t domain_id);
  static ClosedRange make_range(const OpenRange& open, file::NvtxRange::Style style, uint32_t end_tid,
                              uint64_t end_ns, uint32_t depth);

  std::unordered_map<StackKey, std::vector<OpenRange>, StackKeyHash> stacks_;
  std::unordered_map<uint64_t, OpenRange> started_;
  StackKey last_key_{};
  std::vector<OpenRange>* last_stack_ = nullptr;  // stacks_[last_key_]
};

}  // namespace prof
