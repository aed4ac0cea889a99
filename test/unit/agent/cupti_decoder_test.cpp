// CUPTI activity records, built here as CUPTI lays them out in its buffers,
// through the decoder and read back by libprotobuf: what the writer thread
// does with a completed buffer, without libcupti.
#include <catch2/catch.hpp>

#include <google/protobuf/io/coded_stream.h>

#include <cstring>

#include "capture/cupti_decoder.h"
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

  prof::proto::Chunk finish() {
    const std::string& framed = chunk.finish();
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(framed.data()),
                                              static_cast<int>(framed.size()));
    uint32_t length = 0;
    REQUIRE(in.ReadVarint32(&length));
    prof::proto::Chunk parsed;
    REQUIRE(parsed.ParseFromArray(framed.data() + in.CurrentPosition(), static_cast<int>(length)));
    return parsed;
  }
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
