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

bool ParallelRecordDecoder::claim(Slot& slot) {
  // Reading stays in file order: under the lock, one chunk at a time.
  slot.sequence = read_++;
  switch (reader_.take(slot.bytes)) {
    case CaptureReader::Next::kChunk: slot.outcome = RecordDecoder::Next::kChunk; break;
    case CaptureReader::Next::kEnd: slot.outcome = RecordDecoder::Next::kEnd; break;
    case CaptureReader::Next::kError: slot.outcome = RecordDecoder::Next::kError; break;
  }
  slot.offset = reader_.chunk_offset();
  slot.count = reader_.chunk_count();
  if (slot.outcome == RecordDecoder::Next::kChunk) return true;
  slot.error = reader_.error();
  reader_done_ = true;
  return false;
}

void ParallelRecordDecoder::decode_claimed(std::unique_lock<std::mutex>& lock, Slot& slot, recorded::Chunk& chunk) {
  lock.unlock();
  const bool parsed = decode(slot.bytes, chunk);
  lock.lock();
  if (!parsed) {
    // As CaptureReader::fail_chunk says it.
    slot.outcome = RecordDecoder::Next::kError;
    slot.count -= 1;
    slot.error = ReadError{reader_.path(), slot.offset,
                           "chunk " + std::to_string(slot.count) + " (" + std::to_string(slot.bytes.size()) +
                               " bytes) does not parse (corrupt)"};
  }
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
    slot->state = Slot::State::kBusy;
    if (claim(*slot)) decode_claimed(lock, *slot, slot->chunk);
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
  Slot* from = nullptr;
  for (;;) {
    // The caller may have read the very chunk it waits for (before a
    // worker woke): then its own chunk holds it already.
    if (holding_ahead_ && ahead_.sequence == next_out_) {
      from = &ahead_;
      break;
    }
    for (Slot& s : slots_)
      if (s.state == Slot::State::kReady && s.sequence == next_out_) from = &s;
    if (from) break;
    if (!holding_ahead_ && !reader_done_) {
      // Not decoded yet: rather than wait, decode the next unread chunk
      // here, into the caller's chunk (done with: next() was called again).
      if (claim(ahead_)) decode_claimed(lock, ahead_, chunk);
      holding_ahead_ = true;
      continue;
    }
    changed_.wait(lock);
  }
  const RecordDecoder::Next outcome = from->outcome;
  if (outcome == RecordDecoder::Next::kChunk) {
    chunk_offset_ = from->offset;
    chunk_count_ = from->count;
    if (from == &ahead_) {
      holding_ahead_ = false;  // the caller's chunk is this one
    } else if (holding_ahead_) {
      // The caller's chunk, decoded ahead, trades places with the slot's:
      // the slot now holds the later chunk, in its turn.
      std::swap(chunk, from->chunk);
      from->sequence = ahead_.sequence;
      from->outcome = ahead_.outcome;
      from->offset = ahead_.offset;
      from->count = ahead_.count;
      from->error = ahead_.error;
      holding_ahead_ = false;
    } else {
      // The caller's chunk becomes the slot's buffer: both keep their capacity.
      std::swap(chunk, from->chunk);
      from->state = Slot::State::kFree;
    }
    ++next_out_;
    lock.unlock();
    changed_.notify_all();
    return outcome;
  }
  // The end or an error: it stays where it is, for any later call.
  if (outcome == RecordDecoder::Next::kError) {
    error_ = from->error;
    failed_in_slot_ = true;
    chunk_offset_ = from->offset;
  }
  chunk_count_ = from->count;
  return outcome;
}

}  // namespace prof::analyzer
