// The agent's ChunkEncoder, read back by libprotobuf's generated classes:
// every message type of proto/prof.proto, every field.
#include <catch2/catch.hpp>


#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "encode/chunk_encoder.h"
#include "encode/proto_wire.h"
#include "../framed_chunk.h"
#include "proto/prof.pb.h"

namespace {

constexpr uint64_t kBase = 5'000'000'000'000;

// Device 1, context 2, stream 13: where the GPU records of these tests ran.
template <typename GpuRecord>
void place(GpuRecord& r, uint32_t correlation) {
  r.device_id = 1;
  r.context_id = 2;
  r.stream_id = 13;
  r.correlation_id = correlation;
}

}  // namespace

TEST_CASE("the preamble is the magic followed by a Header") {
  const std::string preamble = prof::encode_file_preamble("libprof test");
  REQUIRE(preamble.compare(0, 8, std::string(prof::kFileMagic, 8)) == 0);
  CHECK(preamble.substr(0, 8) == std::string("\x89PROF\r\n\x1a", 8));
  const auto length = static_cast<uint8_t>(preamble[8]);
  REQUIRE(length == preamble.size() - 9);
  prof::proto::Header header;
  REQUIRE(header.ParseFromString(preamble.substr(9)));
  CHECK(header.format_major() == 2);
  CHECK(header.format_minor() == 4);
  CHECK(header.producer() == "libprof test");
}

TEST_CASE("API calls round-trip with launch and transfer arguments and delta-encoded starts") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  prof::file::ApiCall launch;
  launch.tid = 4242;
  launch.domain = prof::file::ApiDomain::runtime;
  launch.callback_id = 13;
  launch.name_id = 3;
  launch.return_code = 0;
  launch.stack_id = 9;
  launch.has_launch = true;
  launch.launch.kernel_name_id = 5;
  prof::set_dims(launch.launch, {64, 2, 1}, {256, 1, 1});
  launch.launch.dynamic_shared_bytes = 1024;
  launch.launch.stream = 0x7f00;
  prof::file::ApiCall copy;
  copy.tid = 4243;
  copy.domain = prof::file::ApiDomain::driver;
  copy.name_id = 4;
  // Earlier than the previous record: a negative delta.
  const prof::Span copy_span{kBase + 500, kBase + 600};
  copy.return_code = -35;
  copy.has_transfer = true;
  copy.transfer = {1 << 20, prof::file::CopyKind::device_to_host, 7, false};
  encoder.add(launch, {kBase + 1000, kBase + 4500}, 77);
  encoder.add(copy, copy_span, 0);

  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  CHECK(chunk.time_base_ns() == kBase);
  REQUIRE(chunk.api_calls_size() == 2);
  const auto& a = chunk.api_calls(0);
  CHECK(a.tid() == 4242);
  CHECK(a.domain() == prof::proto::RUNTIME);
  CHECK(a.callback_id() == 13);
  CHECK(a.name_id() == 3);
  CHECK(a.start_delta_ns() == 1000);
  CHECK(a.duration_ns() == 3500);
  CHECK(a.correlation_id_delta() == 77);  // against 0 for a chunk's first call
  CHECK(a.stack_id() == 9);
  REQUIRE(a.has_launch());
  CHECK(a.launch().kernel_name_id() == 5);
  // Dimensions minus one: the unused 1s are not on the wire.
  CHECK(a.launch().grid_x_minus_one() == 63);
  CHECK(a.launch().grid_y_minus_one() == 1);
  CHECK(a.launch().grid_z_minus_one() == 0);
  CHECK(a.launch().block_x_minus_one() == 255);
  CHECK(a.launch().block_y_minus_one() == 0);
  CHECK(a.launch().block_z_minus_one() == 0);
  CHECK(a.launch().dynamic_shared_bytes() == 1024);
  CHECK(a.launch().stream() == 0x7f00);
  CHECK_FALSE(a.has_transfer());

  const auto& c = chunk.api_calls(1);
  CHECK(c.domain() == prof::proto::DRIVER);
  CHECK(c.start_delta_ns() == -500);
  CHECK(kBase + a.start_delta_ns() + c.start_delta_ns() == copy_span.start_ns);
  CHECK(c.return_code() == -35);
  REQUIRE(c.has_transfer());
  CHECK(c.transfer().bytes() == (1u << 20));
  CHECK(c.transfer().kind() == prof::proto::DEVICE_TO_HOST);
  CHECK(c.transfer().stream() == 7);
  CHECK_FALSE(c.has_launch());
}

TEST_CASE("API calls repeat a tid only when it changes and store correlation ids as deltas") {
  prof::ChunkEncoder encoder;
  const auto call = [](uint32_t tid, uint32_t correlation) {
    prof::file::ApiCall c;
    c.tid = tid;
    c.domain = prof::file::ApiDomain::driver;
    return std::pair{c, correlation};
  };
  const auto add = [&](std::pair<prof::file::ApiCall, uint32_t> c) {
    encoder.add(c.first, {kBase, kBase + 1}, c.second);
  };
  encoder.begin(kBase);
  add(call(7, 100));
  add(call(7, 101));
  add(call(8, 99));
  add(call(8, 0));  // no correlation id at all
  prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.api_calls_size() == 4);
  CHECK(chunk.api_calls(0).tid() == 7);
  CHECK(chunk.api_calls(0).correlation_id_delta() == 100);
  CHECK(chunk.api_calls(1).tid() == 0);
  CHECK(chunk.api_calls(1).correlation_id_delta() == 1);
  CHECK(chunk.api_calls(2).tid() == 8);
  CHECK(chunk.api_calls(2).correlation_id_delta() == -2);
  CHECK(chunk.api_calls(3).tid() == 0);
  CHECK(chunk.api_calls(3).correlation_id_delta() == -99);

  // A new chunk starts from nothing: its first call names its tid again.
  encoder.begin(kBase);
  add(call(8, 5));
  chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.api_calls_size() == 1);
  CHECK(chunk.api_calls(0).tid() == 8);
  CHECK(chunk.api_calls(0).correlation_id_delta() == 5);
}

TEST_CASE("GPU activity records round-trip") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  prof::file::Kernel kernel;
  place(kernel, 77);
  kernel.name_id = 6;
  prof::set_dims(kernel, {128, 3, 2}, {32, 4, 1});
  kernel.registers_per_thread = 40;
  kernel.static_shared_bytes = 2048;
  kernel.dynamic_shared_bytes = 4096;
  kernel.local_memory_per_thread = 16;
  kernel.graph_id = 3;
  kernel.graph_node_id = 1ull << 35;
  encoder.add(kernel, {kBase + 10'000, kBase + 20'000});

  prof::file::Memcpy copy;
  place(copy, 78);
  copy.bytes = 3ull << 30;
  copy.kind = prof::file::CopyKind::peer_to_peer;
  copy.src_kind = prof::file::MemoryKind::device;
  copy.dst_kind = prof::file::MemoryKind::pinned;
  copy.src_device_id = 0;
  copy.dst_device_id = 1;
  copy.is_async = true;
  copy.graph_id = 2;
  encoder.add(copy, {kBase + 30'000, kBase + 31'000});

  prof::file::Memset set;
  place(set, 79);
  set.bytes = 4096;
  set.value = 0xAB;
  set.memory_kind = prof::file::MemoryKind::managed;
  set.graph_id = 4;
  encoder.add(set, {kBase + 40'000, kBase + 40'500});

  prof::file::MemoryEvent memory;
  memory.operation = prof::file::MemoryEvent::Operation::release;
  place(memory, 80);
  memory.address = 0x7f0000001000;
  memory.bytes = 1 << 20;
  memory.memory_kind = prof::file::MemoryKind::device;
  memory.tid = 99;
  encoder.add(memory, kBase + 50'000);

  prof::file::Synchronization sync;
  sync.type = prof::file::Synchronization::Type::stream_wait_event;
  place(sync, 81);
  sync.event = 0xE1;
  encoder.add(sync, {kBase + 60'000, kBase + 61'000});

  prof::file::Overhead overhead;
  overhead.kind_id = 8;
  overhead.tid = 100;
  overhead.device_id = 1;
  encoder.add(overhead, {kBase + 70'000, kBase + 70'300});

  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.kernels_size() == 1);
  const auto& k = chunk.kernels(0);
  CHECK(k.device_id() == 1);
  CHECK(k.context_id() == 2);
  CHECK(k.stream_id() == 13);
  CHECK(k.correlation_id() == 77);
  CHECK(k.name_id() == 6);
  CHECK(k.start_delta_ns() == 10'000);
  CHECK(k.duration_ns() == 10'000);
  CHECK((k.grid_x_minus_one() == 127 && k.grid_y_minus_one() == 2 && k.grid_z_minus_one() == 1));
  CHECK((k.block_x_minus_one() == 31 && k.block_y_minus_one() == 3 && k.block_z_minus_one() == 0));
  CHECK(k.registers_per_thread() == 40);
  CHECK(k.static_shared_bytes() == 2048);
  CHECK(k.dynamic_shared_bytes() == 4096);
  CHECK(k.local_memory_per_thread() == 16);
  CHECK(k.graph_id() == 3);
  CHECK(k.graph_node_id() == (1ull << 35));

  REQUIRE(chunk.memcpys_size() == 1);
  const auto& m = chunk.memcpys(0);
  CHECK(m.correlation_id() == 78);
  CHECK(m.start_delta_ns() == 30'000);
  CHECK(m.duration_ns() == 1000);
  CHECK(m.bytes() == (3ull << 30));
  CHECK(m.kind() == prof::proto::PEER_TO_PEER);
  CHECK(m.src_kind() == prof::proto::DEVICE);
  CHECK(m.dst_kind() == prof::proto::PINNED);
  CHECK(m.src_device_id() == 0);
  CHECK(m.dst_device_id() == 1);
  CHECK(m.is_async());
  CHECK(m.graph_id() == 2);

  REQUIRE(chunk.memsets_size() == 1);
  const auto& s = chunk.memsets(0);
  CHECK(s.correlation_id() == 79);
  CHECK(s.start_delta_ns() == 40'000);
  CHECK(s.duration_ns() == 500);
  CHECK(s.bytes() == 4096);
  CHECK(s.value() == 0xAB);
  CHECK(s.memory_kind() == prof::proto::MANAGED);
  CHECK(s.graph_id() == 4);

  REQUIRE(chunk.memory_events_size() == 1);
  const auto& e = chunk.memory_events(0);
  CHECK(e.operation() == prof::proto::MemoryEvent::RELEASE);
  CHECK(e.device_id() == 1);
  CHECK(e.context_id() == 2);
  CHECK(e.stream_id() == 13);
  CHECK(e.correlation_id() == 80);
  CHECK(e.time_delta_ns() == 50'000);
  CHECK(e.address() == 0x7f0000001000);
  CHECK(e.bytes() == (1u << 20));
  CHECK(e.memory_kind() == prof::proto::DEVICE);
  CHECK(e.tid() == 99);

  REQUIRE(chunk.synchronizations_size() == 1);
  const auto& y = chunk.synchronizations(0);
  CHECK(y.type() == prof::proto::Synchronization::STREAM_WAIT_EVENT);
  CHECK(y.device_id() == 1);
  CHECK(y.context_id() == 2);
  CHECK(y.stream_id() == 13);
  CHECK(y.event() == 0xE1);
  CHECK(y.correlation_id() == 81);
  CHECK(y.start_delta_ns() == 60'000);
  CHECK(y.duration_ns() == 1000);

  REQUIRE(chunk.overheads_size() == 1);
  const auto& o = chunk.overheads(0);
  CHECK(o.kind_id() == 8);
  CHECK(o.tid() == 100);
  CHECK(o.device_id() == 1);
  CHECK(o.start_delta_ns() == 70'000);
  CHECK(o.duration_ns() == 300);
}

TEST_CASE("NVTX ranges and marks round-trip") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  prof::file::NvtxRange range;
  range.tid = 10;
  range.end_tid = 11;
  range.domain_id = 2;
  range.name_id = 3;
  range.style = prof::file::NvtxRange::Style::start_end;
  range.color_argb = 0xFF00FF00;
  range.category = 5;
  range.unterminated = true;
  range.depth = 4;
  encoder.add(range, {kBase - 100, kBase + 900});  // recorded before the chunk began
  prof::file::NvtxMark mark;
  mark.tid = 12;
  mark.domain_id = 2;
  mark.name_id = 4;
  mark.color_argb = 0xFFFF0000;
  mark.category = 6;
  encoder.add(mark, kBase + 50);

  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.nvtx_ranges_size() == 1);
  const auto& r = chunk.nvtx_ranges(0);
  CHECK(r.tid() == 10);
  CHECK(r.end_tid() == 11);
  CHECK(r.domain_id() == 2);
  CHECK(r.name_id() == 3);
  CHECK(r.start_delta_ns() == -100);
  CHECK(r.duration_ns() == 1000);
  CHECK(r.style() == prof::proto::NvtxRange::START_END);
  CHECK(r.color_argb() == 0xFF00FF00);
  CHECK(r.category() == 5);
  CHECK(r.unterminated());
  CHECK(r.depth() == 4);
  REQUIRE(chunk.nvtx_marks_size() == 1);
  const auto& m = chunk.nvtx_marks(0);
  CHECK(m.tid() == 12);
  CHECK(m.domain_id() == 2);
  CHECK(m.name_id() == 4);
  CHECK(m.time_delta_ns() == 50);
  CHECK(m.color_argb() == 0xFFFF0000);
  CHECK(m.category() == 6);
}

TEST_CASE("definitions round-trip: strings, frames, stacks, modules, threads, devices, contexts") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  encoder.add_string(1, "cudaLaunchKernel");
  encoder.add_string(2, std::string("with\0nul", 8));
  encoder.add(prof::file::Frame{5, prof::file::Frame::Kind::python, 0, 0, 1, 2, 42});
  encoder.add(prof::file::Frame{6, prof::file::Frame::Kind::native, 0x401234, 3, 0, 0, 0});
  encoder.add(prof::file::Stack{7, {6, 5, 300}});
  prof::file::Module module{3, "/usr/lib/libfoo.so", 0x7f0000000000, 0x21000, std::string("\x01\x02\xff", 3), 0x7f0000000000};
  encoder.add(module);
  encoder.add(prof::file::Thread{4242, "worker 1"});
  prof::file::Device device;
  device.id = 1;
  device.name = "Simulated GPU";
  device.global_memory_bytes = 16ull << 30;
  device.compute_major = 9;
  device.compute_minor = 0;
  device.sm_count = 132;
  device.warp_size = 32;
  device.max_threads_per_block = 1024;
  device.max_shared_memory_per_block = 49152;
  device.max_registers_per_block = 65536;
  device.core_clock_khz = 1'980'000;
  device.uuid = std::string(16, '\x5a');
  encoder.add(device);
  encoder.add(prof::file::Context{1, 1, 7});

  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.strings_size() == 2);
  CHECK(chunk.strings(0).id() == 1);
  CHECK(chunk.strings(0).value() == "cudaLaunchKernel");
  CHECK(chunk.strings(1).value() == std::string("with\0nul", 8));
  REQUIRE(chunk.frames_size() == 2);
  CHECK(chunk.frames(0).id() == 5);
  CHECK(chunk.frames(0).kind() == prof::proto::Frame::PYTHON);
  CHECK(chunk.frames(0).function_name_id() == 1);
  CHECK(chunk.frames(0).file_name_id() == 2);
  CHECK(chunk.frames(0).line() == 42);
  CHECK(chunk.frames(1).kind() == prof::proto::Frame::NATIVE);
  CHECK(chunk.frames(1).address() == 0x401234);
  CHECK(chunk.frames(1).module_id() == 3);
  REQUIRE(chunk.stacks_size() == 1);
  CHECK(chunk.stacks(0).id() == 7);
  REQUIRE(chunk.stacks(0).frame_ids_size() == 3);
  CHECK(chunk.stacks(0).frame_ids(0) == 6);
  CHECK(chunk.stacks(0).frame_ids(2) == 300);
  REQUIRE(chunk.modules_size() == 1);
  CHECK(chunk.modules(0).id() == 3);
  CHECK(chunk.modules(0).path() == "/usr/lib/libfoo.so");
  CHECK(chunk.modules(0).load_address() == 0x7f0000000000);
  CHECK(chunk.modules(0).size() == 0x21000);
  CHECK(chunk.modules(0).build_id() == std::string("\x01\x02\xff", 3));
  CHECK(chunk.modules(0).bias() == 0x7f0000000000);
  REQUIRE(chunk.threads_size() == 1);
  CHECK(chunk.threads(0).tid() == 4242);
  CHECK(chunk.threads(0).name() == "worker 1");
  REQUIRE(chunk.devices_size() == 1);
  const auto& d = chunk.devices(0);
  CHECK(d.id() == 1);
  CHECK(d.name() == "Simulated GPU");
  CHECK(d.global_memory_bytes() == (16ull << 30));
  CHECK(d.compute_major() == 9);
  CHECK(d.compute_minor() == 0);
  CHECK(d.sm_count() == 132);
  CHECK(d.warp_size() == 32);
  CHECK(d.max_threads_per_block() == 1024);
  CHECK(d.max_shared_memory_per_block() == 49152);
  CHECK(d.max_registers_per_block() == 65536);
  CHECK(d.core_clock_khz() == 1'980'000);
  CHECK(d.uuid() == std::string(16, '\x5a'));
  REQUIRE(chunk.contexts_size() == 1);
  CHECK(chunk.contexts(0).id() == 1);
  CHECK(chunk.contexts(0).device_id() == 1);
  CHECK(chunk.contexts(0).null_stream_id() == 7);
}

TEST_CASE("process, drop counts and process end round-trip") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  prof::file::Process process;
  process.pid = 1234;
  process.parent_pid = 1;
  process.hostname = "node-7";
  process.executable = "/usr/bin/python3";
  process.command_line = {"python3", "", "train.py"};  // an empty argument stays
  process.rank = 3;
  process.world_size = 8;
  process.has_clock_anchor = true;
  process.clock_anchor = {1'700'000'000'000'000'000, kBase};
  process.start_ns = kBase + 1;
  process.options = {{"stacks", "native"}, {"capture", "all"}};
  encoder.set(process);
  encoder.set(prof::file::DropCounts{5, 6, 7});
  encoder.set(prof::file::ProcessEnd{kBase + 99, prof::file::ProcessEnd::Reason::signal, 15});

  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.has_process());
  const auto& p = chunk.process();
  CHECK(p.pid() == 1234);
  CHECK(p.parent_pid() == 1);
  CHECK(p.hostname() == "node-7");
  CHECK(p.executable() == "/usr/bin/python3");
  REQUIRE(p.command_line_size() == 3);
  CHECK(p.command_line(1).empty());
  CHECK(p.command_line(2) == "train.py");
  CHECK(p.rank() == 3);
  CHECK(p.world_size() == 8);
  CHECK(p.clock_anchor().realtime_ns() == 1'700'000'000'000'000'000);
  CHECK(p.clock_anchor().monotonic_ns() == kBase);
  CHECK(p.start_ns() == kBase + 1);
  REQUIRE(p.options_size() == 2);
  CHECK(p.options().at("stacks") == "native");
  CHECK(p.options().at("capture") == "all");
  REQUIRE(chunk.has_drops());
  CHECK(chunk.drops().ring_full() == 5);
  CHECK(chunk.drops().cupti_records() == 6);
  CHECK(chunk.drops().truncated_payloads() == 7);
  REQUIRE(chunk.has_process_end());
  CHECK(chunk.process_end().end_ns() == kBase + 99);
  CHECK(chunk.process_end().reason() == prof::proto::ProcessEnd::SIGNAL);
  CHECK(chunk.process_end().signal() == 15);
}

TEST_CASE("a rank of -1 (no rank) survives zigzag encoding") {
  prof::ChunkEncoder encoder;
  prof::file::Process process;
  process.pid = 1;
  process.rank = -1;
  process.world_size = -1;
  encoder.set(process);
  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  CHECK(chunk.process().rank() == -1);
  CHECK(chunk.process().world_size() == -1);
}

TEST_CASE("finish() starts a fresh chunk whose deltas restart at the time base") {
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  prof::file::NvtxMark mark;
  mark.tid = 1;
  mark.name_id = 1;
  encoder.add(mark, kBase + 700);
  CHECK_FALSE(encoder.empty());
  (void)encoder.finish();
  CHECK(encoder.empty());
  CHECK(encoder.pending_bytes() == 0);
  encoder.add(mark, kBase + 800);
  const prof::proto::Chunk chunk = parse_framed(encoder.finish());
  REQUIRE(chunk.nvtx_marks_size() == 1);
  CHECK(chunk.nvtx_marks(0).time_delta_ns() == 800);
}

TEST_CASE("an API call record with typical values stays within 32 bytes") {
  // The file-size target of the benchmarks issue, pinned where it is decided.
  prof::ChunkEncoder encoder;
  encoder.begin(kBase);
  uint64_t t = kBase;
  for (uint32_t i = 0; i < 1000; ++i) {
    prof::file::ApiCall call;
    call.tid = 123456;
    call.domain = prof::file::ApiDomain::runtime;
    call.callback_id = 211;
    call.name_id = 17;
    call.stack_id = 1'000 + (i % 7);
    t += 2'500;
    encoder.add(call, {t, t + 1'800}, 100'000 + i);
  }
  const size_t per_record = encoder.finish().size() / 1000;
  CHECK(per_record <= 32);
}

namespace {

// Values at every varint length's edges, and the signed ones' negatives.
constexpr uint64_t kEdges[] = {0,           1,           127,         128,
                               16'383,      16'384,      2'097'151,   2'097'152,
                               268'435'456, 4294967295u, 1ull << 35,  1ull << 62,
                               1ull << 63,  UINT64_MAX};

// The chunk generated write_fields() makes of `kernels` (deltas and
// durations set): what ChunkEncoder wrote with them before it wrote kernels
// field by field, and what ProtoWriter, tested against libprotobuf, writes.
std::string generated_chunk(uint64_t time_base, const std::vector<prof::file::Kernel>& kernels) {
  std::string time_field;
  prof::ProtoWriter(time_field).add_uint(prof::file::Chunk::Fields::time_base_ns, time_base);
  std::string lists;
  prof::ProtoWriter<std::string> w(lists);
  for (const prof::file::Kernel& kernel : kernels) {
    w.add_message(prof::file::Chunk::Fields::kernels, [&](auto& m) { prof::file::write_fields(m, kernel); });
  }
  std::string framed;
  prof::ProtoWriter(framed).varint(time_field.size() + lists.size());
  return framed + time_field + lists;
}

}  // namespace

TEST_CASE("kernels written field by field are the generated encoding's bytes, every field at every width") {
  // A kernel per edge value, that value in every field at once (bodies of
  // 128 bytes and more: the two-byte length), and one per field with the
  // others 0 (each field's own tag, one or two bytes).
  std::vector<prof::file::Kernel> kernels;
  // UINT64_MAX first: the widest kernel, given the widest span below.
  for (uint64_t v : std::initializer_list<uint64_t>{UINT64_MAX, 0, 1, 127, 128, 16'383, 16'384, 2'097'151, 2'097'152,
                                                    268'435'456, 4294967295u, 1ull << 35, 1ull << 62, 1ull << 63}) {
    prof::file::Kernel k;
    k.device_id = k.context_id = k.stream_id = k.correlation_id = static_cast<uint32_t>(v);
    k.name_id = v;
    k.grid_x_minus_one = k.grid_y_minus_one = k.grid_z_minus_one = static_cast<uint32_t>(v);
    k.block_x_minus_one = k.block_y_minus_one = k.block_z_minus_one = static_cast<uint32_t>(v);
    k.registers_per_thread = k.static_shared_bytes = k.dynamic_shared_bytes = static_cast<uint32_t>(v);
    k.local_memory_per_thread = k.graph_id = static_cast<uint32_t>(v);
    k.graph_node_id = v;
    k.event_timed = v != 0;
    kernels.push_back(k);
    for (int field = 0; field < 18; ++field) {
      prof::file::Kernel one;
      uint32_t* fields32[] = {&one.device_id, &one.context_id, &one.stream_id, &one.correlation_id,
                              &one.grid_x_minus_one, &one.grid_y_minus_one, &one.grid_z_minus_one,
                              &one.block_x_minus_one, &one.block_y_minus_one, &one.block_z_minus_one,
                              &one.registers_per_thread, &one.static_shared_bytes, &one.dynamic_shared_bytes,
                              &one.local_memory_per_thread, &one.graph_id};
      if (field < 15) {
        *fields32[field] = static_cast<uint32_t>(v);
      } else if (field == 15) {
        one.name_id = v;
      } else if (field == 16) {
        one.graph_node_id = v;
      } else {
        one.event_timed = v != 0;
      }
      kernels.push_back(one);
    }
  }
  // Times: starts that go forwards and back by every edge (the deltas'
  // zigzag), durations of every width, and an end before the start.
  const uint64_t base = kBase;
  std::vector<prof::Span> spans;
  uint64_t previous = base;
  std::vector<prof::file::Kernel> expected = kernels;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const uint64_t step = kEdges[i % std::size(kEdges)] % (1ull << 40);
    const uint64_t start = i == 0 ? base + (1ull << 40) : i % 2 == 0 ? base + step : base - step;
    uint64_t end = i % 5 == 4 ? start - 1 : start + kEdges[(i / 3) % std::size(kEdges)] % (1ull << 50);
    if (i == 0) end = start + (1ull << 50);  // the widest kernel, all of its fields at UINT64_MAX's width
    spans.push_back({start, end});
    expected[i].start_delta_ns = static_cast<int64_t>(start - previous);
    expected[i].duration_ns = end > start ? end - start : 0;
    previous = start;
  }
  prof::ChunkEncoder encoder;
  encoder.begin(base);
  for (size_t i = 0; i < kernels.size(); ++i) encoder.add(kernels[i], spans[i]);
  const std::string written = encoder.finish();
  CHECK(written == generated_chunk(base, expected));
  const prof::proto::Chunk chunk = parse_framed(written);
  REQUIRE(chunk.kernels_size() == static_cast<int>(kernels.size()));
  CHECK(chunk.kernels(0).graph_node_id() == UINT64_MAX);
  // The bodies of 128 bytes and more (a two-byte length) were among them.
  size_t longest = 0;
  for (const auto& kernel : chunk.kernels()) longest = std::max(longest, kernel.ByteSizeLong());
  CHECK(longest >= 128);
}

TEST_CASE("a kernel repeated from a kept one is the generated encoding's bytes, every field at every width") {
  // Each kernel given to add_kept(), then repeated by add_kernel_repeat()
  // with other times and correlation ids (the decoder's repeated launch):
  // the same bytes as add() of the same kernels, and as the generated
  // write_fields' (the kept bytes of a kernel of 128 bytes and more, whose
  // length takes two bytes, included).
  std::vector<prof::file::Kernel> kernels;
  std::vector<prof::Span> spans;
  std::vector<bool> repeats;
  uint64_t t = kBase;
  for (uint64_t v : kEdges) {
    prof::file::Kernel k;
    k.device_id = static_cast<uint32_t>(v);
    k.context_id = static_cast<uint32_t>(v >> 1);
    k.stream_id = static_cast<uint32_t>(v / 3);
    k.name_id = v;
    k.grid_x_minus_one = k.grid_y_minus_one = k.grid_z_minus_one = static_cast<uint32_t>(v);
    k.block_x_minus_one = k.block_y_minus_one = k.block_z_minus_one = static_cast<uint32_t>(v >> 2);
    k.registers_per_thread = k.static_shared_bytes = k.dynamic_shared_bytes = static_cast<uint32_t>(v);
    k.local_memory_per_thread = k.graph_id = static_cast<uint32_t>(v);
    k.graph_node_id = v;
    k.event_timed = v % 2 != 0;
    // Kept, then repeated with correlation ids and times of every width:
    // starts forwards and back, an end before its start.
    for (uint64_t w : kEdges) {
      prof::file::Kernel r = k;
      r.correlation_id = static_cast<uint32_t>(w);
      const uint64_t step = w % (1ull << 40);
      const uint64_t start = w % 2 == 0 ? t + step : t - step;
      kernels.push_back(r);
      spans.push_back({start, w % 5 == 4 ? start - 1 : start + (w >> 14)});
      repeats.push_back(w != kEdges[0]);  // the first of each run is kept
    }
    t += 1'000'000;
  }
  prof::ChunkEncoder direct;
  prof::ChunkEncoder repeating;
  direct.begin(kBase);
  repeating.begin(kBase);
  std::vector<prof::file::Kernel> expected = kernels;
  uint64_t previous = kBase;
  size_t repeated = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    prof::file::Kernel a = kernels[i];
    prof::file::Kernel b = kernels[i];
    direct.add(a, spans[i]);
    if (repeats[i]) {
      repeating.add_kernel_repeat(b.correlation_id, spans[i]);
      ++repeated;
    } else {
      repeating.add_kept(b, spans[i]);
    }
    expected[i].start_delta_ns = static_cast<int64_t>(spans[i].start_ns - previous);
    expected[i].duration_ns = spans[i].duration_ns();
    previous = spans[i].start_ns;
  }
  const std::string written = direct.finish();
  CHECK(repeated * 2 > kernels.size());
  CHECK(written == generated_chunk(kBase, expected));
  CHECK(repeating.finish() == written);
  const prof::proto::Chunk chunk = parse_framed(written);
  size_t longest = 0;
  for (const auto& kernel : chunk.kernels()) longest = std::max(longest, kernel.ByteSizeLong());
  CHECK(longest >= 128);
}

TEST_CASE("an API call from its fields is the generated encoding's bytes, every field at every width") {
  // Each call twice: as the file::ApiCall the generated write_fields encodes
  // (ChunkEncoder::add(file::ApiCall&)), and as the ApiCallFields the writer
  // hands over; both encoders must hold the same bytes after every call.
  // A third is given a call that repeats the one before it but for its tid,
  // times and correlation id as add_call_repeat() (the writer's repeated launch),
  // and must hold the same bytes too.
  prof::ChunkEncoder generated;
  prof::ChunkEncoder direct;
  prof::ChunkEncoder repeating;
  generated.begin(kBase);
  direct.begin(kBase);
  repeating.begin(kBase);
  uint32_t grid[3];
  uint32_t block[3];
  size_t calls = 0;
  size_t repeats = 0;
  const auto both = [&](uint64_t v, int kind, uint32_t tid, uint32_t correlation, prof::Span span,
                        bool repeats_previous = false) {
    prof::ApiCallFields f{};
    f.tid = tid;
    f.correlation_id = correlation;
    f.span = span;
    // Enums as the wire carries them, the values no call has (from a bad
    // record) included: UINT64_MAX's are -1, five bytes.
    f.domain = static_cast<prof::file::ApiDomain>(v == UINT64_MAX ? -1 : static_cast<int>(v % 3));
    f.backend = static_cast<prof::file::CaptureBackend>(v == UINT64_MAX ? -1 : static_cast<int>(v % 2));
    f.callback_id = static_cast<uint32_t>(v);
    f.return_code = static_cast<int32_t>(v);
    f.name_id = v;
    f.stack_id = v;
    for (int i = 0; i < 3; ++i) {
      grid[i] = static_cast<uint32_t>(v + 1 + i);  // minus one on the wire: v, v + 1, v + 2
      block[i] = static_cast<uint32_t>(v * 3 + 1 - i);
    }
    prof::file::ApiCall c;
    c.tid = tid;
    c.domain = f.domain;
    c.backend = f.backend;
    c.callback_id = f.callback_id;
    c.return_code = f.return_code;
    c.name_id = f.name_id;
    c.stack_id = f.stack_id;
    if (kind == 1) {
      f.args = prof::ApiCallFields::Args::launch;
      f.kernel_name_id = v;
      f.grid = grid;
      f.block = block;
      f.dynamic_shared_bytes = static_cast<uint32_t>(v);
      f.stream = v;
      c.has_launch = true;
      c.launch.kernel_name_id = v;
      prof::set_dims(c.launch, grid, block);
      c.launch.dynamic_shared_bytes = static_cast<uint32_t>(v);
      c.launch.stream = v;
    } else if (kind == 2 || kind == 3) {
      f.args = prof::ApiCallFields::Args::transfer;
      f.bytes = v;
      f.copy_kind = static_cast<prof::file::CopyKind>(v % 7);
      f.stream = v;
      f.is_memset = kind == 3;
      c.has_transfer = true;
      c.transfer = {v, f.copy_kind, v, kind == 3};
    } else {
      f.args = prof::ApiCallFields::Args::none;
    }
    generated.add(c, span, correlation);
    direct.add(f);
    if (repeats_previous) {
      repeating.add_call_repeat(tid, span, correlation);
      ++repeats;
    } else {
      repeating.add_kept(f);
    }
    ++calls;
  };
  uint64_t t = kBase;
  uint32_t tid = 1;
  // The widest call: every field at its longest varint (a body of more
  // than 128 bytes, a two-byte length), then again from another thread.
  both(UINT64_MAX, 1, UINT32_MAX, UINT32_MAX, {kBase + (1ull << 62), kBase + (1ull << 63)});
  both(UINT64_MAX, 1, 1, 0, {kBase + 1, kBase + (1ull << 63)}, true);
  for (uint64_t v : kEdges) {
    for (int kind = 0; kind < 4; ++kind) {
      // Same tid twice (0 on the wire), then another; correlation ids up and
      // down; starts forwards and back; an end before its start. The second
      // and third repeat the first but for these.
      const uint64_t step = v % (1ull << 40);
      both(v, kind, tid, static_cast<uint32_t>(v), {t + step, t + step + v % 1'000'000});
      both(v, kind, tid, static_cast<uint32_t>(v / 3), {t, t + (v >> 20)}, true);
      both(v, kind, ++tid, static_cast<uint32_t>(~v), {t + 1, t}, true);
      t += 1'000;
    }
  }
  const std::string a = generated.finish();
  const std::string b = direct.finish();
  const std::string r = repeating.finish();
  CHECK(a.size() > calls * 10);
  CHECK(a == b);
  CHECK(repeats * 3 > calls);
  CHECK(r == b);
  const prof::proto::Chunk chunk = parse_framed(b);
  CHECK(chunk.api_calls_size() == static_cast<int>(calls));
  size_t longest = 0;
  for (const auto& call : chunk.api_calls()) longest = std::max(longest, call.ByteSizeLong());
  CHECK(longest >= 128);
}

TEST_CASE("the records written without the generated writer have the schema's fields, no more") {
  // ChunkEncoder writes ApiCall (with its LaunchArgs and TransferArgs) and
  // Kernel field by field: a field added to one of them in prof.proto must be
  // written there too, and these counts updated with it.
  CHECK(prof::proto::ApiCall::descriptor()->field_count() == 12);
  CHECK(prof::proto::LaunchArgs::descriptor()->field_count() == 9);
  CHECK(prof::proto::TransferArgs::descriptor()->field_count() == 4);
  CHECK(prof::proto::Kernel::descriptor()->field_count() == 20);
}
