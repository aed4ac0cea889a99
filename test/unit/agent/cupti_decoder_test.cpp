// CUPTI activity records, built here as CUPTI lays them out in its buffers,
// through the decoder and read back by libprotobuf: what the writer thread
// does with a completed buffer, without libcupti.
#include <catch2/catch.hpp>


#include <cstring>

#include "capture/cupti_decoder.h"
#include "../framed_chunk.h"
#include "proto/prof.pb.h"

namespace {

constexpr uint64_t kBase = 7'000'000'000;

// Zeroed like a fresh buffer, with the kind CUPTI writes first.
template <typename Record>
Record zeroed(CUpti_ActivityKind kind) {
  Record r;
  std::memset(&r, 0, sizeof(r));
  r.kind = kind;
  return r;
}

struct Decoded {
  prof::ChunkEncoder chunk;
  prof::StringTable strings;
  prof::CuptiDecoder decoder;

  template <typename Record>
  void decode(const Record& record) {
    prof::ChunkSink sink{chunk, strings};
    decoder.decode(reinterpret_cast<const CUpti_Activity*>(&record), sink);
  }

  prof::proto::Chunk finish() { return parse_framed(chunk.finish()); }
};

std::string string_of(const prof::proto::Chunk& chunk, uint64_t id) {
  for (const auto& s : chunk.strings()) {
    if (s.id() == id) return s.value();
  }
  return "<undefined>";
}

CUpti_ActivityKernel10 kernel(uint32_t correlation, uint64_t start, uint64_t end) {
  auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.correlationId = correlation;
  k.start = start;
  k.end = end;
  k.gridX = 128;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 2048;
  k.dynamicSharedMemory = 4096;
  k.localMemoryPerThread = 16;
  k.graphId = 3;
  k.graphNodeId = 1ull << 33;
  k.name = "_Z6vecAddPfS_S_i";
  return k;
}

}  // namespace

TEST_CASE("a concurrent kernel record becomes a Kernel with its place, times and shape") {
  Decoded d;
  d.chunk.begin(kBase);
  d.decode(kernel(77, kBase + 1'000, kBase + 6'000));
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == 1);
  const auto& k = chunk.kernels(0);
  CHECK(k.device_id() == 1);
  CHECK(k.context_id() == 2);
  CHECK(k.stream_id() == 13);
  CHECK(k.correlation_id() == 77);
  CHECK(k.start_delta_ns() == 1'000);
  CHECK(k.duration_ns() == 5'000);
  CHECK(k.grid_x_minus_one() == 127);
  CHECK(k.grid_y_minus_one() == 1);
  CHECK(k.grid_z_minus_one() == 0);
  CHECK(k.block_x_minus_one() == 255);
  CHECK(k.registers_per_thread() == 40);
  CHECK(k.static_shared_bytes() == 2048);
  CHECK(k.dynamic_shared_bytes() == 4096);
  CHECK(k.local_memory_per_thread() == 16);
  CHECK(k.graph_id() == 3);
  CHECK(k.graph_node_id() == (1ull << 33));
  CHECK(string_of(chunk, k.name_id()) == "_Z6vecAddPfS_S_i");
}

TEST_CASE("a record CUPTI handed over unfinished is counted, not written") {
  Decoded d;
  d.chunk.begin(kBase);
  d.decode(kernel(1, kBase + 1'000, 0));
  CHECK(d.decoder.unfinished() == 1);
  CHECK(d.finish().kernels_size() == 0);
}

TEST_CASE("the wait at exit: a finished record's launch has come, an unfinished one's has not") {
  Decoded d;
  d.chunk.begin(kBase);
  prof::WindowLaunches in_flight;
  in_flight.begin();
  in_flight.launched(1);
  in_flight.launched(2);
  prof::ChunkSink sink{d.chunk, d.strings};
  sink.in_flight = &in_flight;
  const auto finished = kernel(1, kBase + 1'000, kBase + 2'000);
  const auto running = kernel(2, kBase + 1'000, 0);  // a forced flush's record of running work
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&finished), sink);
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&running), sink);
  CHECK(in_flight.outstanding() == 1);  // counted missing at exit
  CHECK(d.decoder.unfinished() == 1);
  CHECK(d.finish().kernels_size() == 1);
}

TEST_CASE("with capture windows, only records that start inside one are written") {
  Decoded d;
  d.chunk.begin(kBase);
  d.decoder.use_windows();
  d.decoder.open_window(kBase + 100);
  d.decoder.close_window(kBase + 200);
  d.decode(kernel(1, kBase + 50, kBase + 150));   // starts before
  d.decode(kernel(2, kBase + 150, kBase + 450));  // starts inside, ends after: kept
  d.decode(kernel(3, kBase + 250, kBase + 300));  // after
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == 1);
  CHECK(chunk.kernels(0).correlation_id() == 2);
}

TEST_CASE("copies, peer copies and memsets keep their kinds and sizes") {
  Decoded d;
  d.chunk.begin(kBase);
  auto copy = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  copy.bytes = 1 << 20;
  copy.start = kBase + 10;
  copy.end = kBase + 110;
  copy.correlationId = 5;
  d.decode(copy);
  auto peer = zeroed<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  peer.srcDeviceId = 0;
  peer.dstDeviceId = 1;
  peer.bytes = 4096;
  peer.start = kBase + 200;
  peer.end = kBase + 210;
  d.decode(peer);
  auto set = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  set.bytes = 512;
  set.value = 0xAB;
  set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  set.start = kBase + 300;
  set.end = kBase + 301;
  d.decode(set);

  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.memcpys_size() == 2);
  CHECK(chunk.memcpys(0).kind() == prof::proto::HOST_TO_DEVICE);
  CHECK(chunk.memcpys(0).src_kind() == prof::proto::PINNED);
  CHECK(chunk.memcpys(0).dst_kind() == prof::proto::DEVICE);
  CHECK(chunk.memcpys(0).is_async());
  CHECK(chunk.memcpys(0).bytes() == (1u << 20));
  CHECK(chunk.memcpys(0).duration_ns() == 100);
  CHECK(chunk.memcpys(1).kind() == prof::proto::PEER_TO_PEER);
  CHECK(chunk.memcpys(1).dst_device_id() == 1);
  CHECK_FALSE(chunk.memcpys(1).is_async());
  REQUIRE(chunk.memsets_size() == 1);
  CHECK(chunk.memsets(0).value() == 0xAB);
  CHECK(chunk.memsets(0).memory_kind() == prof::proto::MANAGED);
}

TEST_CASE("memory, synchronization, device, context and overhead records") {
  Decoded d;
  d.chunk.begin(kBase);
  auto memory = zeroed<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
  memory.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  memory.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  memory.address = 0x7f0000001000;
  memory.bytes = 1 << 16;
  memory.timestamp = kBase + 40;
  d.decode(memory);
  auto sync = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.contextId = 2;
  sync.streamId = 14;
  sync.start = kBase + 50;
  sync.end = kBase + 90;
  d.decode(sync);
  auto device = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  device.id = 1;
  device.name = "Test GPU";
  device.numMultiprocessors = 132;
  device.computeCapabilityMajor = 9;
  d.decode(device);
  auto context = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  context.contextId = 2;
  context.deviceId = 1;
  context.nullStreamId = 7;
  d.decode(context);
  auto overhead = zeroed<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  overhead.objectId.pt.threadId = 4242;
  overhead.start = kBase + 60;
  overhead.end = kBase + 70;
  d.decode(overhead);

  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.memory_events_size() == 1);
  CHECK(chunk.memory_events(0).operation() == prof::proto::MemoryEvent::RELEASE);
  CHECK(chunk.memory_events(0).address() == 0x7f0000001000);
  CHECK(chunk.memory_events(0).time_delta_ns() == 40);
  REQUIRE(chunk.synchronizations_size() == 1);
  CHECK(chunk.synchronizations(0).type() == prof::proto::Synchronization::STREAM_SYNCHRONIZE);
  CHECK(chunk.synchronizations(0).stream_id() == 14);
  CHECK(chunk.synchronizations(0).duration_ns() == 40);
  REQUIRE(chunk.devices_size() == 1);
  CHECK(chunk.devices(0).name() == "Test GPU");
  CHECK(chunk.devices(0).sm_count() == 132);
  CHECK(chunk.devices(0).uuid().size() == sizeof(device.uuid));
  REQUIRE(chunk.contexts_size() == 1);
  CHECK(chunk.contexts(0).null_stream_id() == 7);
  REQUIRE(chunk.overheads_size() == 1);
  CHECK(chunk.overheads(0).tid() == 4242);
  CHECK(string_of(chunk, chunk.overheads(0).kind_id()) == "CUPTI buffer flush");
}

TEST_CASE("a kind the agent does not record writes nothing") {
  Decoded d;
  auto other = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_MARKER);
  d.decode(other);
  CHECK(d.chunk.empty());
}

namespace {

// A kernel's Kernel message but for its times and correlation id, as a
// string to compare: the fields a repeated kernel's bytes are copied for.
std::string shape_of(const prof::proto::Kernel& k, const prof::proto::Chunk& chunk) {
  prof::proto::Kernel shape = k;
  shape.clear_correlation_id();
  shape.clear_start_delta_ns();
  shape.clear_duration_ns();
  shape.clear_name_id();
  return shape.SerializeAsString() + "|" + string_of(chunk, k.name_id());
}

}  // namespace

TEST_CASE("a kernel that repeats the one before it but for its times and correlation id is written exactly") {
  // The decoder writes such a kernel as the kept kernel's bytes around its
  // own times and correlation id (ChunkEncoder::add_kernel_repeat). Every
  // field the file has must stop a repeat when it differs, the name's text
  // at the same address included; fields the file does not have (gridId,
  // queued, ...) must not. Each record is checked against a decoder that
  // sees it alone.
  char name_text[] = "_Z6vecAddPfS_S_i";  // a module's name: its text may change at one address
  std::vector<CUpti_ActivityKernel10> records;
  uint32_t correlation = 100;
  uint64_t t = kBase;
  const auto add = [&](CUpti_ActivityKernel10 k) {
    k.correlationId = correlation;
    correlation += correlation % 3 == 0 ? 1 : 200;  // ids of one to three varint bytes' steps
    k.start = t + 5;
    k.end = t + 5 + (correlation % 7) * 1000;
    t += 20'000;
    records.push_back(k);
  };
  CUpti_ActivityKernel10 base = kernel(0, 0, 0);
  base.name = name_text;
  // A run, with the fields CUPTI changes per launch that the file lacks.
  for (int i = 0; i < 4; ++i) {
    CUpti_ActivityKernel10 k = base;
    k.gridId = i;
    k.queued = 1000 + i;
    k.submitted = 2000 + i;
    k.completed = 3000 + i;
    k.kind = i % 2 == 0 ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
    add(k);
  }
  // Each field the file has, changed in one record, then back (twice, so
  // that the changed one is kept and repeated too).
  const std::vector<void (*)(CUpti_ActivityKernel10&)> changes = {
      [](CUpti_ActivityKernel10& k) { k.deviceId = 2; },
      [](CUpti_ActivityKernel10& k) { k.contextId = 1u << 20; },
      [](CUpti_ActivityKernel10& k) { k.streamId = 14; },
      [](CUpti_ActivityKernel10& k) { k.gridX = 1; },
      [](CUpti_ActivityKernel10& k) { k.gridY = 3; },
      [](CUpti_ActivityKernel10& k) { k.gridZ = 2; },
      [](CUpti_ActivityKernel10& k) { k.blockX = 1024; },
      [](CUpti_ActivityKernel10& k) { k.blockY = 2; },
      [](CUpti_ActivityKernel10& k) { k.blockZ = 64; },
      [](CUpti_ActivityKernel10& k) { k.registersPerThread = 255; },
      [](CUpti_ActivityKernel10& k) { k.staticSharedMemory = 0; },
      [](CUpti_ActivityKernel10& k) { k.dynamicSharedMemory = 1 << 16; },
      [](CUpti_ActivityKernel10& k) { k.localMemoryPerThread = 0; },
      [](CUpti_ActivityKernel10& k) { k.graphId = 4; },
      [](CUpti_ActivityKernel10& k) { k.graphNodeId = 1; },
      [](CUpti_ActivityKernel10& k) { k.name = "_Z6vecAddPfS_S_i"; },  // same text elsewhere
      [](CUpti_ActivityKernel10& k) { k.name = nullptr; },
  };
  for (const auto& change : changes) {
    CUpti_ActivityKernel10 k = base;
    change(k);
    add(k);
    add(k);
    add(k);
    add(base);
    add(base);
  }
  // The name's text changed at its address (a module unloaded, another
  // loaded there): same length, then shorter.
  Decoded d;
  d.chunk.begin(kBase);
  std::vector<std::string> expected;
  const auto decode_and_expect = [&](const CUpti_ActivityKernel10& k) {
    Decoded alone;
    alone.chunk.begin(kBase);
    alone.decode(k);
    const prof::proto::Chunk one = alone.finish();
    REQUIRE(one.kernels_size() == 1);
    expected.push_back(shape_of(one.kernels(0), one));
    d.decode(k);
  };
  for (const CUpti_ActivityKernel10& k : records) decode_and_expect(k);
  for (const char* text : {"_Z6vecSubPfS_S_i", "_Z6vecSubPfS_S_i", "_Z3subv", "_Z3subv", "_Z3subv"}) {
    std::strcpy(name_text, text);
    add(base);
    decode_and_expect(records.back());
  }
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == static_cast<int>(records.size()));
  uint64_t start = kBase;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& k = chunk.kernels(static_cast<int>(i));
    INFO("kernel " << i);
    CHECK(shape_of(k, chunk) == expected[i]);
    CHECK(k.correlation_id() == records[i].correlationId);
    start += static_cast<uint64_t>(k.start_delta_ns());
    CHECK(start == records[i].start);
    CHECK(k.duration_ns() == records[i].end - records[i].start);
  }
  CHECK(string_of(chunk, chunk.kernels(static_cast<int>(records.size()) - 1).name_id()) == "_Z3subv");
}

TEST_CASE("a repeated kernel still passes the windows and the launches' bookkeeping") {
  // A run of kernels of which some are outside the capture window: the
  // repeats must be decided per record after the window's, and each
  // record's launch must still arrive.
  Decoded d;
  d.chunk.begin(kBase);
  prof::WindowLaunches in_flight;
  in_flight.begin();
  for (uint32_t id = 1; id <= 6; ++id) in_flight.launched(id);
  d.decoder.use_windows();
  d.decoder.open_window(kBase + 2'000);
  d.decoder.close_window(kBase + 4'500);
  prof::ChunkSink sink{d.chunk, d.strings};
  sink.in_flight = &in_flight;
  for (uint32_t id = 1; id <= 6; ++id) {
    const CUpti_ActivityKernel10 k = kernel(id, kBase + id * 1'000, kBase + id * 1'000 + 500);
    d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&k), sink);
  }
  CHECK(in_flight.outstanding() == 0);
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == 3);  // starts at 2, 3 and 4 us
  uint64_t start = kBase;
  for (int i = 0; i < 3; ++i) {
    start += static_cast<uint64_t>(chunk.kernels(i).start_delta_ns());
    CHECK(chunk.kernels(i).correlation_id() == static_cast<uint32_t>(i + 2));
    CHECK(start == kBase + (i + 2) * 1'000);
    CHECK(chunk.kernels(i).grid_x_minus_one() == 127);
    CHECK(string_of(chunk, chunk.kernels(i).name_id()) == "_Z6vecAddPfS_S_i");
  }
}

TEST_CASE("a kernel is repeated only into the encoder that holds the kept kernel's bytes") {
  Decoded d;
  d.chunk.begin(kBase);
  d.decode(kernel(1, kBase + 1'000, kBase + 1'500));
  d.decode(kernel(2, kBase + 2'000, kBase + 2'500));  // kept, into d.chunk
  prof::ChunkEncoder other;
  other.begin(kBase);
  prof::ChunkSink sink{other, d.strings};
  const CUpti_ActivityKernel10 third = kernel(3, kBase + 3'000, kBase + 3'500);
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&third), sink);
  const prof::proto::Chunk chunk = parse_framed(other.finish());
  REQUIRE(chunk.kernels_size() == 1);
  CHECK(chunk.kernels(0).correlation_id() == 3);
  CHECK(chunk.kernels(0).stream_id() == 13);
  CHECK(chunk.kernels(0).grid_x_minus_one() == 127);
  CHECK(chunk.kernels(0).graph_node_id() == (1ull << 33));
  CHECK(chunk.kernels(0).name_id() != 0);
}

TEST_CASE("a record that came before its call was drained is the window's once its call is") {
  // The window's last kernel: launched inside it, started after its end.
  // Its record came while the writer had not drained its call yet, at a
  // pass that began before it started (held for a later window); then the
  // call was drained, the window ended, and the held record was decoded.
  Decoded d;
  d.chunk.begin(kBase);
  prof::WindowLaunches launches;
  launches.begin();
  launches.launched(1);
  d.decoder.use_windows();
  d.decoder.open_window(kBase + 1'000);
  prof::ChunkSink pass{d.chunk, d.strings};
  pass.launches = &launches;
  pass.later_after_ns = kBase + 4'000;
  const CUpti_ActivityKernel10 first = kernel(1, kBase + 2'000, kBase + 3'000);
  const CUpti_ActivityKernel10 last = kernel(2, kBase + 6'000, kBase + 7'000);
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&first), pass);
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&last), pass);
  CHECK(launches.outstanding() == 0);
  launches.launched(2);  // its call, drained now
  CHECK(launches.outstanding() == 1);
  d.decoder.close_window(kBase + 5'000);
  prof::ChunkSink completing{d.chunk, d.strings};
  completing.launches = &launches;
  completing.later_after_ns = kBase + 5'000;
  d.decoder.decode_held(completing);
  CHECK(launches.outstanding() == 0);
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == 2);
  CHECK(chunk.kernels(1).correlation_id() == 2);
}

TEST_CASE("a record of work that started after the pass began and that no call awaits waits for the window whose call launched it") {
  Decoded d;
  d.chunk.begin(kBase);
  prof::WindowLaunches launches;
  launches.begin();
  d.decoder.use_windows();
  d.decoder.open_window(kBase + 1'000);
  d.decoder.close_window(kBase + 5'000);
  prof::ChunkSink pass{d.chunk, d.strings};
  pass.launches = &launches;
  pass.later_after_ns = kBase + 5'000;
  const CUpti_ActivityKernel10 later = kernel(7, kBase + 6'000, kBase + 7'000);
  d.decoder.decode(reinterpret_cast<const CUpti_Activity*>(&later), pass);
  CHECK(d.finish().kernels_size() == 0);
  // The next window, whose call launched it (drained into it, now).
  launches.end();
  launches.begin();
  launches.launched(7);
  d.decoder.open_window(kBase + 5'500);
  d.chunk.begin(kBase);
  pass.later_after_ns = UINT64_MAX;
  d.decoder.decode_held(pass);
  CHECK(launches.outstanding() == 0);
  const prof::proto::Chunk chunk = d.finish();
  REQUIRE(chunk.kernels_size() == 1);
  CHECK(chunk.kernels(0).correlation_id() == 7);
}
