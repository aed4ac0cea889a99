#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "record/recorder.h"
#include "record/thread_buffer.h"

namespace {

struct CountRecord {
  prof::RecordHeader header;
  uint64_t sequence;
};
static_assert(sizeof(CountRecord) == 16);

bool put(prof::ThreadBuffer& buffer, uint64_t sequence, uint32_t payload = 0, ptrdiff_t hold = 0) {
  auto* record = prof::begin_record<CountRecord>(buffer, prof::RecordType::nvtx_mark, payload, hold);
  if (record == nullptr) return false;
  record->sequence = sequence;
  buffer.commit();
  return true;
}

std::vector<uint64_t> drain(prof::ThreadBuffer& buffer) {
  std::vector<uint64_t> seen;
  buffer.drain([&](const prof::RecordHeader& header) {
    seen.push_back(reinterpret_cast<const CountRecord&>(header).sequence);
  });
  return seen;
}

}  // namespace

TEST_CASE("a full buffer drops new records and counts every drop") {
  prof::ThreadBuffer buffer(4096, 1);
  REQUIRE(buffer.capacity() == 4096);
  uint64_t accepted = 0;
  for (uint64_t i = 0; i < 1000; ++i) accepted += put(buffer, i) ? 1 : 0;
  CHECK(accepted == 4096 / sizeof(CountRecord));
  CHECK(buffer.dropped() == 1000 - accepted);
  // What was accepted is intact and in order; the drops were the newest.
  const std::vector<uint64_t> seen = drain(buffer);
  REQUIRE(seen.size() == accepted);
  for (uint64_t i = 0; i < accepted; ++i) CHECK(seen[i] == i);
  // Once drained there is room again.
  CHECK(put(buffer, 5000));
  CHECK(drain(buffer) == std::vector<uint64_t>{5000});
}

TEST_CASE("records that would cross the end of the ring wrap to its start") {
  prof::ThreadBuffer buffer(4096, 1);
  uint64_t next = 0;
  std::vector<uint64_t> all;
  // Records of 16 + 40 bytes rounded to 56: never a divisor of 4096, so the
  // ring wraps with padding many times.
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 10; ++i) REQUIRE(put(buffer, next++, 40));
    for (uint64_t s : drain(buffer)) all.push_back(s);
  }
  REQUIRE(all.size() == next);
  for (uint64_t i = 0; i < next; ++i) REQUIRE(all[i] == i);
  CHECK(buffer.dropped() == 0);
}

TEST_CASE("room held by a push is there for its pop however full the ring gets") {
  // Pushes of 56 bytes each hold 32 (twice a 16-byte pop), then plain
  // records fill what is left: every pop still fits, at any offset of the
  // ring (padding before a pop that would cross its end included).
  for (uint32_t offset = 0; offset < 64; offset += 8) {
    prof::ThreadBuffer buffer(4096, 1);
    // Move the write position along, so that the ring's end falls at a
    // different place relative to the records each round.
    for (uint32_t i = 0; i < offset / 8; ++i) REQUIRE(put(buffer, 0, 0));
    drain(buffer);
    uint64_t pushes = 0;
    while (put(buffer, 1, 40, 32)) ++pushes;
    REQUIRE(pushes > 0);
    uint64_t plain = 0;
    while (put(buffer, 2, 0)) ++plain;
    for (uint64_t i = 0; i < pushes; ++i) REQUIRE(put(buffer, 3, 0, -32));
    CHECK(buffer.dropped() == 2);  // the push and the plain record that did not fit
    const std::vector<uint64_t> seen = drain(buffer);
    CHECK(seen.size() == pushes + plain + pushes);
  }
}

TEST_CASE("a ring holds at most an eighth of itself for records to come") {
  prof::ThreadBuffer buffer(4096, 1);
  uint64_t held = 0;
  while (buffer.can_hold(64) && put(buffer, 1, 0, 64)) ++held;
  CHECK(held == 4096 / 8 / 64);
  // With nothing more held, the rest of the ring takes plain records.
  uint64_t plain = 0;
  while (put(buffer, 2, 0)) ++plain;
  CHECK(plain == (4096 - held * 16 - held * 64) / 16);
  buffer.release_held(held * 64);
  CHECK(put(buffer, 3, 0));
}

TEST_CASE("a record larger than the whole buffer is dropped, not written") {
  prof::ThreadBuffer buffer(4096, 1);
  CHECK_FALSE(put(buffer, 1, 5000));
  CHECK(buffer.dropped() == 1);
  CHECK(drain(buffer).empty());
}

TEST_CASE("a concurrent producer and consumer lose nothing but the counted drops") {
  prof::ThreadBuffer buffer(8192, 1);
  constexpr uint64_t kRecords = 200'000;
  std::atomic<bool> done{false};
  uint64_t accepted = 0;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kRecords; ++i) accepted += put(buffer, i, (i % 5) * 8) ? 1 : 0;
    done.store(true);
  });
  std::vector<uint64_t> seen;
  while (!done.load()) {
    for (uint64_t s : drain(buffer)) seen.push_back(s);
  }
  producer.join();
  for (uint64_t s : drain(buffer)) seen.push_back(s);
  CHECK(seen.size() == accepted);
  CHECK(accepted + buffer.dropped() == kRecords);
  // Sequence numbers only increase: no torn or repeated record.
  for (size_t i = 1; i < seen.size(); ++i) REQUIRE(seen[i] > seen[i - 1]);
}

TEST_CASE("the recorder gives each thread its own buffer and counts drops over all") {
  prof::Recorder recorder(4096);
  prof::ThreadBuffer* main_buffer = recorder.thread_buffer();
  REQUIRE(main_buffer != nullptr);
  CHECK(recorder.thread_buffer() == main_buffer);
  uint32_t other_tid = 0;
  std::thread other([&] {
    prof::ThreadBuffer* buffer = recorder.thread_buffer();
    REQUIRE(buffer != nullptr);
    other_tid = buffer->tid();
    for (uint64_t i = 0; i < 300; ++i) put(*buffer, i);  // 256 fit
  });
  other.join();
  CHECK(other_tid != main_buffer->tid());
  CHECK(recorder.dropped() == 300 - 256);
  size_t from_other = 0;
  recorder.drain_all([&](const prof::ThreadBuffer& buffer, const prof::RecordHeader&) {
    if (buffer.tid() == other_tid) ++from_other;
  });
  CHECK(from_other == 256);
  // The exited thread's buffer is gone, its drops are kept.
  CHECK(recorder.dropped() == 300 - 256);
  recorder.stop_accepting();
  std::thread late([&] { CHECK(recorder.thread_buffer() == nullptr); });
  late.join();
}

TEST_CASE("a producer over half full waits for the consumer, at most the limit, then not again until it caught up") {
  prof::ThreadBuffer buffer(4096, 1);
  prof::ThreadBuffer::set_wait_limit_ns(0);
  uint64_t sequence = 0;
  while (put(buffer, sequence)) ++sequence;  // full: 256 records of 16 bytes
  // No limit set: no wait, whatever the fill.
  CHECK(buffer.wait_for_room().start_ns == 0);
  CHECK(buffer.wait_stats().waits == 0);

  // A consumer that frees the ring after 20 ms: the wait ends then, with room.
  prof::ThreadBuffer::set_wait_limit_ns(5'000'000'000);
  std::thread consumer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    drain(buffer);
  });
  const prof::ThreadBuffer::Wait waited = buffer.wait_for_room();
  consumer.join();
  CHECK(waited.start_ns != 0);
  CHECK(waited.end_ns - waited.start_ns >= 15'000'000);  // the consumer's 20 ms, less the start-up of its thread
  CHECK(buffer.wait_stats().waits == 1);
  CHECK(buffer.wait_stats().timeouts == 0);
  CHECK(put(buffer, sequence++));

  // Nobody drains: the wait ends at the limit, without room (nothing to record).
  while (put(buffer, sequence)) ++sequence;
  prof::ThreadBuffer::set_wait_limit_ns(30'000'000);
  CHECK(buffer.wait_for_room().start_ns == 0);
  CHECK(buffer.wait_stats().waits == 2);
  CHECK(buffer.wait_stats().timeouts == 1);
  CHECK(buffer.wait_stats().longest_ns >= 30'000'000);
  // Then no more waits while the ring stays over half full: a stuck consumer
  // costs one limit, not one per event.
  CHECK(buffer.wait_for_room().start_ns == 0);
  CHECK(buffer.wait_stats().waits == 2);
  // Once the consumer caught up, waits are on again.
  drain(buffer);
  CHECK(buffer.wait_for_room().start_ns == 0);  // at most half full: no wait
  while (put(buffer, sequence)) ++sequence;
  std::thread late_consumer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    drain(buffer);
  });
  CHECK(buffer.wait_for_room().start_ns != 0);
  late_consumer.join();
  CHECK(buffer.wait_stats().waits == 3);
  prof::ThreadBuffer::set_wait_limit_ns(0);
}

TEST_CASE("the consumer gives room back every 64 KiB within a slice") {
  prof::ThreadBuffer buffer(1u << 20, 1);
  uint64_t sequence = 0;
  while (put(buffer, sequence)) ++sequence;
  // In the middle of one drain of 512 KiB, the producer finds room as soon
  // as 64 KiB of records were visited, not only when the drain returns.
  size_t visited = 0;
  bool room_before = false;
  bool room_after = false;
  buffer.drain([&](const prof::RecordHeader&) {
    ++visited;
    if (visited == 100) room_before = put(buffer, sequence);
    if (visited == (64u << 10) / sizeof(CountRecord) + 1) room_after = put(buffer, sequence);
  }, 512u << 10);
  CHECK_FALSE(room_before);
  CHECK(room_after);
}
