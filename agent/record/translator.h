#pragma once
// Ring records -> file records: interns strings and stacks, pairs NVTX begin
// and end events into ranges, names threads. Runs on the writer thread only,
// and touches neither files nor clocks, so a test drives it with records it
// builds itself.
#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/tick_calibration.h"
#include "encode/chunk_encoder.h"
#include "record/nvtx_ranges.h"
#include "record/records.h"
#include "record/stack_table.h"
#include "record/string_table.h"
#include "stacks/python_frames.h"

namespace prof {

class Translator {
 public:
  // Where a thread's name comes from when it first records (/proc by
  // default); "" falls back to the name the buffer saw at its start.
  using ThreadNameSource = std::string (*)(uint32_t tid);
  explicit Translator(ThreadNameSource thread_name);
  // stacks_ holds a pointer to strings_: a copied or moved Translator
  // would intern its stacks' names into the other one's (freed) table.
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;
  // Host ticks -> ns (the writer's calibration, which outlives this);
  // without one, record times are ns already.
  void use_clock(const TickCalibration* clock) { clock_ = clock; }

  // One record of `buffer` into `chunk` (or into open state: an NVTX push
  // waits for its pop).
  void translate(const ThreadBuffer& buffer, const RecordHeader& header, ChunkEncoder& chunk);

  // The writer's lookahead (ThreadBuffer::drain's `ahead`): called a few
  // records before translate() reaches a record, it starts loading what the
  // record will look up (an NVTX name's slot in the string table), while
  // the ring is in a stretch of NVTX records and the table is too large to
  // stay in the cache (a few names used again and again gain nothing from
  // it, and would pay a second hash per name). Inline: it runs per record.
  struct Lookahead {
    const Translator* translator;
    bool active() const { return translator->strings_.worth_prefetching(); }
    static bool worth(const RecordHeader& header) {
      return header.type >= static_cast<uint16_t>(RecordType::nvtx_push) &&
             header.type <= static_cast<uint16_t>(RecordType::nvtx_mark);
    }
    void operator()(const RecordHeader& header) const {
      const auto type = static_cast<RecordType>(header.type);
      if (type == RecordType::nvtx_push || type == RecordType::nvtx_range_start || type == RecordType::nvtx_mark) {
        translator->strings_.prefetch(
            {payload_of(reinterpret_cast<const NvtxEventRecord&>(header)), header.payload_bytes});
      }
    }
  };
  Lookahead lookahead() const { return {this}; }

  // The end of recording: NVTX ranges still open, closed at `end_ns`.
  void close_open_ranges(uint64_t end_ns, ChunkEncoder& chunk);

  // Shared with GPU records (CUPTI's kernel names).
  StringTable& strings() { return strings_; }
  uint64_t truncated_payloads() const { return truncated_payloads_; }
  uint64_t unmatched_range_ends() const { return unmatched_range_ends_; }

 private:
  // Every record but an API call (noinline: apart, its frame is not set up
  // for the API calls).
  [[gnu::noinline]] void translate_other(uint32_t tid, const RecordHeader& header, ChunkEncoder& chunk);
  // The first record of a thread's run: the thread noted, then translate().
  [[gnu::noinline]] void translate_first_of_run(const ThreadBuffer& buffer, const RecordHeader& header,
                                                ChunkEncoder& chunk);
  void api_call(uint32_t tid, const ApiCallRecord& record, ChunkEncoder& chunk);
  // A call that does not repeat the previous one, field by field (noinline:
  // apart, its frame is not set up for the repeats).
  // `Kept`: the call is kept (kept_call_, ChunkEncoder::add_kept).
  template <bool Kept>
  [[gnu::noinline]] void api_call_encoded(uint32_t tid, const ApiCallRecord& record, ChunkEncoder& chunk);
  uint64_t api_name_id(const ApiCallRecord& record, ChunkEncoder& chunk);
  [[gnu::noinline]] uint64_t new_api_name_id(const ApiCallRecord& record, ChunkEncoder& chunk);
  void note_thread(const ThreadBuffer& buffer, ChunkEncoder& chunk);

  uint64_t ns(uint64_t ticks) const { return clock_ != nullptr ? clock_->to_ns(ticks) : ticks; }
  Span ns(uint64_t start_ticks, uint64_t end_ticks) const {
    Span span{start_ticks, end_ticks};
    if (clock_ != nullptr) clock_->to_ns(start_ticks, end_ticks, span.start_ns, span.end_ns);
    return span;
  }

  ThreadNameSource thread_name_;
  const TickCalibration* clock_ = nullptr;
  StringTable strings_;
  struct ApiName {
    const char* function_name = nullptr;
    uint64_t id = 0;
  };
  std::array<std::vector<ApiName>, 3> api_names_;  // [ApiDomain][callback id]
  StackTable stacks_;
  // The last call's frames as recorded (native, then Python) and their
  // stack id. A loop calls from the same stack again and again; a call whose
  // frames are these bytes has this id, without merging and hashing its
  // frames again (a third of the instructions per Python frame, callgrind;
  // StackTable's hash is 5 instructions a native frame). One for calls with
  // Python frames, one for calls with native frames only, so that a thread
  // of each kind does not evict the other's.
  class LastStack {
   public:
    // The id of `native` then `python`, if they are the frames remembered; else 0.
    uint64_t id_of(const uint64_t* native, uint32_t native_depth, const PythonFrame* python,
                   uint32_t python_depth) const;
    void remember(const uint64_t* native, uint32_t native_depth, const PythonFrame* python, uint32_t python_depth,
                  uint64_t stack_id);

   private:
    uint32_t native_depth_ = 0;
    uint32_t python_depth_ = 0;
    std::vector<char> frames_;
    uint64_t stack_id_ = 0;
  };
  LastStack last_python_stack_;
  LastStack last_native_stack_;
  uint64_t native_stack_id(const uint64_t* frames, uint32_t depth, ChunkEncoder& chunk);
  // A call that repeats the one before it (a loop's launch: the same
  // function, arguments, kernel name and stack) is written as that call's
  // bytes again around its own times, tid and correlation id
  // (ChunkEncoder::add_call_repeat, KeptCallBytes; CuptiDecoder::KeptKernel
  // does the same for kernels): ~150 of api_call's ~390 instructions per
  // launch were the same fields encoded again. The previous call's function
  // and kernel (or bytes) are noted on every call; the whole call is kept
  // (and its bytes in the encoder) only for the second of a run of calls
  // with the same two, so that calls that alternate pay two compares.
  struct KeptCall {
    const ChunkEncoder* chunk = nullptr;  // which holds its bytes; null: none yet
    ApiCallRecord record{};
    std::string_view kernel_name;  // its launch's, in strings_
    uint64_t stack_id = 0;
  };
  KeptCall kept_call_;
  const char* previous_function_ = nullptr;
  uint64_t previous_kernel_or_bytes_ = 0;
  bool repeats_kept_call(const ApiCallRecord& record, const ChunkEncoder& chunk) const;
  NvtxRangeAssembler ranges_;
  std::unordered_set<uint32_t> known_threads_;
  uint32_t last_noted_tid_ = 0;
  uint64_t truncated_payloads_ = 0;
  uint64_t unmatched_range_ends_ = 0;
};

}  // namespace prof
