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

#include "encode/chunk_encoder.h"
#include "record/nvtx_ranges.h"
#include "record/records.h"
#include "record/stack_table.h"
#include "record/string_table.h"

namespace prof {

class Translator {
 public:
  // Where a thread's name comes from when it first records (/proc by
  // default); "" falls back to the name the buffer saw at its start.
  using ThreadNameSource = std::string (*)(uint32_t tid);
  explicit Translator(ThreadNameSource thread_name);

  // One record of `buffer` into `chunk` (or into open state: an NVTX push
  // waits for its pop).
  void translate(const ThreadBuffer& buffer, const RecordHeader& header, ChunkEncoder& chunk);

  // Called a few records before translate() reaches `header` (the writer's
  // lookahead): starts loading what that record will look up.
  void prefetch(const RecordHeader& header) const;

  // The end of recording: NVTX ranges still open, closed at `end_ns`.
  void close_open_ranges(uint64_t end_ns, ChunkEncoder& chunk);

  // Shared with GPU records (CUPTI's kernel names).
  StringTable& strings() { return strings_; }
  uint64_t truncated_payloads() const { return truncated_payloads_; }
  uint64_t unmatched_range_ends() const { return unmatched_range_ends_; }

 private:
  void api_call(uint32_t tid, const ApiCallRecord& record, ChunkEncoder& chunk);
  uint64_t api_name_id(const ApiCallRecord& record, ChunkEncoder& chunk);
  void note_thread(const ThreadBuffer& buffer, ChunkEncoder& chunk);

  ThreadNameSource thread_name_;
  StringTable strings_;
  struct ApiName {
    const char* function_name = nullptr;
    uint64_t id = 0;
  };
  std::array<std::vector<ApiName>, 3> api_names_;  // [ApiDomain][callback id]
  StackTable stacks_;
  NvtxRangeAssembler ranges_;
  std::unordered_set<uint32_t> known_threads_;
  uint32_t last_noted_tid_ = 0;
  uint64_t truncated_payloads_ = 0;
  uint64_t unmatched_range_ends_ = 0;
};

}  // namespace prof
