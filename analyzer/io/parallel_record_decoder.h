#pragma once
// RecordDecoder with the decoding on other threads: while the caller loads
// chunk N, `threads` threads read chunks N+1.. and decode them, and next()
// hands them out in file order. The chunks, the error and the truncated
// tail are those RecordDecoder gives (the file is still read in order, one
// chunk at a time, under a lock; only the decoding runs side by side).
// Memory: `threads` + 1 decoded chunks and their bytes beside the caller's.
// With 0 threads it is RecordDecoder itself, on the caller's thread.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/capture_reader.h"
#include "io/read_error.h"
#include "io/record_decoder.h"
#include "io/records.h"

namespace prof::analyzer {

class ParallelRecordDecoder {
 public:
  explicit ParallelRecordDecoder(unsigned threads) : threads_(threads) {}
  ~ParallelRecordDecoder();
  ParallelRecordDecoder(const ParallelRecordDecoder&) = delete;
  ParallelRecordDecoder& operator=(const ParallelRecordDecoder&) = delete;

  // As RecordDecoder's.
  [[nodiscard]] bool open(const std::string& path) { return reader_.open(path); }
  [[nodiscard]] RecordDecoder::Next next(recorded::Chunk& chunk);
  const recorded::Header& header() const { return reader_.header(); }
  // open()'s error is the reader's; next()'s, with threads, the slot's.
  const ReadError& error() const { return failed_in_slot_ ? error_ : reader_.error(); }
  uint64_t chunk_offset() const { return threads_ ? chunk_offset_ : reader_.chunk_offset(); }
  uint64_t chunk_count() const { return threads_ ? chunk_count_ : reader_.chunk_count(); }
  const std::optional<ReadError>& truncated_tail() const { return reader_.truncated_tail(); }

 private:
  // One chunk between the file and the caller.
  struct Slot {
    enum class State { kFree, kBusy, kReady } state = State::kFree;
    uint64_t sequence = 0;  // its place in the file: 0, 1, 2, ...
    RecordDecoder::Next outcome = RecordDecoder::Next::kChunk;
    std::string bytes;
    recorded::Chunk chunk;
    uint64_t offset = 0;  // CaptureReader::chunk_offset() for it
    uint64_t count = 0;   // CaptureReader::chunk_count() after it
    ReadError error;
  };
  void start();
  void work();

  const unsigned threads_;
  CaptureReader reader_;  // with threads: read under mutex_ only
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Slot> slots_;
  uint64_t read_ = 0;      // chunks (and the end or error) taken from the reader
  uint64_t next_out_ = 0;  // the sequence next() hands out next
  bool reader_done_ = false;
  bool stop_ = false;
  std::vector<std::thread> workers_;
  ReadError error_;
  bool failed_in_slot_ = false;
  uint64_t chunk_offset_ = 0;
  uint64_t chunk_count_ = 0;
};

}  // namespace prof::analyzer
