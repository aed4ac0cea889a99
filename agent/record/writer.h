#pragma once
// The writer thread: every drain interval it empties the thread buffers,
// turns records into file messages (interning strings, pairing NVTX events)
// and appends a chunk to the file at least every flush interval, so that a
// process killed with SIGKILL loses about one interval.
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "config.h"
#include "encode/chunk_encoder.h"
#include "record/activity_source.h"
#include "record/nvtx_ranges.h"
#include "record/recorder.h"
#include "record/stack_table.h"
#include "record/string_table.h"

namespace prof {

class Writer {
 public:
  Writer(Recorder& recorder, const AgentConfig& config, ProcessInfo process);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Readies the wake-up channel. The file itself is created with the first
  // chunk that holds records.
  [[nodiscard]] bool prepare();
  void start();

  // Asks the writer to write everything recorded so far; with `final`, also
  // to end the file with `end` and stop. Async-signal-safe. Returns a ticket
  // for wait_until_written.
  uint64_t request_flush(bool final, EndReason reason = EndReason::exit, int signal = 0);
  // Waits (polling, async-signal-safe) until the flush `ticket` is on disk or
  // `timeout_ms` passed. False on timeout or when the writer is not running.
  bool wait_until_written(uint64_t ticket, uint32_t timeout_ms) const;

  // GPU activity to drain with the thread buffers (set once, when CUDA starts).
  void set_activity_source(ActivitySource* source) {
    activity_source_.store(source, std::memory_order_release);
  }

  // Joins the thread after a final flush.
  void join();

  // Around the app's fork(): holds the writer between two passes over the
  // buffers, so that it is not inside malloc (or holding any other lock)
  // when the child is made. glibc's malloc is fork-safe anyway; allocators
  // that are not (GCC 12's AddressSanitizer) left the child waiting forever
  // on a lock the writer held. A pass takes a few milliseconds at most.
  void hold_for_fork() { pass_mutex_.lock(); }
  void release_after_fork() { pass_mutex_.unlock(); }

  const std::string& path() const { return path_; }
  // After the final flush: whether any record was written (and so a file).
  bool wrote_file() const { return fd_ >= 0; }
  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }

 private:
  void run();
  void drain();
  void handle(const ThreadBuffer& buffer, const RecordHeader& header);
  void handle_api_call(uint32_t tid, const ApiCallRecord& record);
  uint64_t api_name_id(const ApiCallRecord& record);
  void note_thread(const ThreadBuffer& buffer);
  void write_chunk();
  [[nodiscard]] bool create_file();
  [[nodiscard]] bool write_all(const std::string& bytes);
  void finish(uint64_t end_ns);

  Recorder& recorder_;
  const AgentConfig config_;
  const std::string path_;
  ProcessInfo process_;

  int fd_ = -1;
  int wake_fd_ = -1;  // eventfd: flush requests (also from signal handlers)
  std::thread thread_;
  std::mutex pass_mutex_;  // held by the writer while it drains and writes
  std::atomic<bool> running_{false};

  // Flush tickets: requesters take one from requested_, the writer publishes
  // the highest ticket whose data is written in written_.
  std::atomic<uint64_t> requested_{0};
  std::atomic<uint64_t> written_{0};
  std::atomic<bool> final_requested_{false};
  std::atomic<uint32_t> end_reason_{0};
  std::atomic<int> end_signal_{0};
  std::atomic<uint64_t> bytes_written_{0};
  std::atomic<ActivitySource*> activity_source_{nullptr};

  // Writer-thread state.
  ChunkEncoder chunk_;
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
  DropCounts drops_written_;
  bool final_drops_ = false;
  uint64_t truncated_payloads_ = 0;
  uint64_t unmatched_range_ends_ = 0;
  uint64_t last_write_ns_ = 0;
  bool write_failed_ = false;
};

}  // namespace prof
