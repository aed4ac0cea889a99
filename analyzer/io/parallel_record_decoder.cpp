#include "io/parallel_record_decoder.h"

#include <algorithm>
#include <utility>

namespace prof::analyzer {

ParallelRecordDecoder::~ParallelRecordDecoder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ParallelRecordDecoder::start() {
  slots_.resize(threads_ + 1);
  for (unsigned i = 0; i < threads_; ++i) workers_.emplace_back([this] { work(); });
}

void ParallelRecordDecoder::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    Slot* slot = nullptr;
    changed_.wait(lock, [&] {
      slot = nullptr;
      if (stop_ || reader_done_) return true;
      for (Slot& s : slots_)
        if (s.state == Slot::State::kFree) slot = &s;
      return slot != nullptr;
    });
    if (stop_ || reader_done_) return;
    // Reading stays in file order: under the lock, one chunk at a time.
    slot->state = Slot::State::kBusy;
    slot->sequence = read_++;
    switch (reader_.take(slot->bytes)) {
      case CaptureReader::Next::kChunk: slot->outcome = RecordDecoder::Next::kChunk; break;
      case CaptureReader::Next::kEnd: slot->outcome = RecordDecoder::Next::kEnd; break;
      case CaptureReader::Next::kError: slot->outcome = RecordDecoder::Next::kError; break;
    }
    slot->offset = reader_.chunk_offset();
    slot->count = reader_.chunk_count();
    if (slot->outcome != RecordDecoder::Next::kChunk) {
      slot->error = reader_.error();
      slot->state = Slot::State::kReady;
      reader_done_ = true;
      changed_.notify_all();
      return;
    }
    lock.unlock();
    const bool parsed = decode(slot->bytes, slot->chunk);
    lock.lock();
    if (!parsed) {
      // As CaptureReader::fail_chunk says it.
      slot->outcome = RecordDecoder::Next::kError;
      slot->count -= 1;
      slot->error = ReadError{reader_.path(), slot->offset,
                              "chunk " + std::to_string(slot->count) + " (" + std::to_string(slot->bytes.size()) +
                                  " bytes) does not parse (corrupt)"};
    }
    slot->state = Slot::State::kReady;
    changed_.notify_all();
  }
}

RecordDecoder::Next ParallelRecordDecoder::next(recorded::Chunk& chunk) {
  if (threads_ == 0) {
    std::string_view payload;
    switch (reader_.next(payload)) {
      case CaptureReader::Next::kError: return RecordDecoder::Next::kError;
      case CaptureReader::Next::kEnd: return RecordDecoder::Next::kEnd;
      case CaptureReader::Next::kChunk: break;
    }
    if (!decode(payload, chunk)) {
      reader_.fail_chunk();
      return RecordDecoder::Next::kError;
    }
    return RecordDecoder::Next::kChunk;
  }
  if (workers_.empty()) start();
  std::unique_lock<std::mutex> lock(mutex_);
  Slot* slot = nullptr;
  changed_.wait(lock, [&] {
    slot = nullptr;
    for (Slot& s : slots_)
      if (s.state == Slot::State::kReady && s.sequence == next_out_) slot = &s;
    return slot != nullptr;
  });
  const RecordDecoder::Next outcome = slot->outcome;
  if (outcome == RecordDecoder::Next::kChunk) {
    // The caller's chunk becomes the slot's buffer: both keep their capacity.
    std::swap(chunk, slot->chunk);
    chunk_offset_ = slot->offset;
    chunk_count_ = slot->count;
    slot->state = Slot::State::kFree;
    ++next_out_;
    lock.unlock();
    changed_.notify_all();
    return outcome;
  }
  // The end or an error: it stays, for any later call.
  if (outcome == RecordDecoder::Next::kError) {
    error_ = slot->error;
    failed_in_slot_ = true;
    chunk_offset_ = slot->offset;
  }
  chunk_count_ = slot->count;
  return outcome;
}

}  // namespace prof::analyzer
