// RecordDecoder: every field of a record reaches its plain struct, with the
// format's compact fields undone. Chunks are written field by field here,
// deltas and all, so the expected values do not come from the test writer's
// own encoding.
#include <catch2/catch.hpp>
#include <google/protobuf/stubs/logging.h>
#include <random>

#include "analyzer_test_support.h"
#include "io/record_decoder.h"

using namespace prof::testing;
using prof::analyzer::RecordDecoder;
namespace recorded = prof::analyzer::recorded;
namespace analyzer = prof::analyzer;

namespace {

prof::proto::ApiCall* api_call(prof::proto::Chunk& c, uint32_t tid, int64_t start_delta, int64_t correlation_delta) {
  auto* a = c.add_api_calls();
  a->set_tid(tid);
  a->set_start_delta_ns(start_delta);
  a->set_duration_ns(100);
  a->set_correlation_id_delta(correlation_delta);
  return a;
}

}  // namespace

TEST_CASE("The decoder undoes an ApiCall's compact fields and keeps its arguments", "[decoder]") {
  prof::proto::Chunk c;
  c.set_time_base_ns(1000);
  auto* first = api_call(c, 7, 10, 5);
  first->set_domain(prof::proto::DRIVER);
  first->set_callback_id(13);
  first->set_name_id(3);
  first->set_return_code(-2);
  first->set_stack_id(4);
  auto* launch = first->mutable_launch();
  launch->set_kernel_name_id(5);
  launch->set_grid_y_minus_one(1);
  launch->set_grid_z_minus_one(2);
  launch->set_block_x_minus_one(31);
  launch->set_dynamic_shared_bytes(64);
  launch->set_stream(0xabc);
  auto* second = api_call(c, 0, 5, 1);  // tid 0: the previous call's
  second->set_domain(prof::proto::RUNTIME);
  auto* transfer = second->mutable_transfer();
  transfer->set_bytes(4096);
  transfer->set_kind(prof::proto::DEVICE_TO_HOST);
  transfer->set_stream(9);
  transfer->set_is_memset(true);
  second->set_backend(prof::proto::HOOKS);
  api_call(c, 9, -3, -2)->set_domain(static_cast<prof::proto::ApiDomain>(7));  // a domain this reader does not know

  TempFile f;
  f.write(CaptureFileWriter().chunk(c).bytes());
  RecordDecoder decoder;
  REQUIRE(decoder.open(f.path()));
  CHECK(decoder.header().producer == "libprof test-writer");
  recorded::Chunk chunk;
  REQUIRE(decoder.next(chunk) == RecordDecoder::Next::kChunk);
  REQUIRE(chunk.api_calls.size() == 3);
  const recorded::ApiCall& a = chunk.api_calls[0];
  CHECK(a.tid == 7);
  CHECK(a.domain == analyzer::ApiDomain::kDriver);
  CHECK(a.callback_id == 13);
  CHECK(a.name_id == 3);
  CHECK(a.start_ns == 1010);
  CHECK(a.duration_ns == 100);
  CHECK(a.correlation_id == 5);
  CHECK(a.return_code == -2);
  CHECK(a.stack_id == 4);
  REQUIRE(a.launch);
  CHECK(a.launch->kernel_name_id == 5);
  CHECK((a.launch->grid.x == 1 && a.launch->grid.y == 2 && a.launch->grid.z == 3));
  CHECK((a.launch->block.x == 32 && a.launch->block.y == 1 && a.launch->block.z == 1));
  CHECK(a.launch->dynamic_shared_bytes == 64);
  CHECK(a.launch->stream == 0xabc);
  CHECK_FALSE(a.transfer);

  const recorded::ApiCall& b = chunk.api_calls[1];
  CHECK(b.tid == 7);
  CHECK(b.start_ns == 1015);
  CHECK(b.correlation_id == 6);
  CHECK(b.domain == analyzer::ApiDomain::kRuntime);
  CHECK_FALSE(b.launch);
  REQUIRE(b.transfer);
  CHECK(b.transfer->bytes == 4096);
  CHECK(b.transfer->kind == analyzer::CopyKind::kDeviceToHost);
  CHECK(b.transfer->stream == 9);
  CHECK(b.transfer->is_memset);
  CHECK(b.backend == analyzer::CaptureBackend::kHooks);
  CHECK(a.backend == analyzer::CaptureBackend::kCupti);

  CHECK(chunk.api_calls[2].tid == 9);
  CHECK(chunk.api_calls[2].start_ns == 1012);
  CHECK(chunk.api_calls[2].correlation_id == 4);
  CHECK(chunk.api_calls[2].domain == static_cast<analyzer::ApiDomain>(7));  // kept as written
}

TEST_CASE("The decoder keeps the GPU fields no view shows, and enum values it does not know", "[decoder]") {
  prof::proto::Chunk c;
  c.set_time_base_ns(500);
  auto* k = c.add_kernels();
  k->set_start_delta_ns(20);
  k->set_local_memory_per_thread(48);
  k->set_graph_id(2);
  k->set_graph_node_id(1ull << 40);
  k->set_block_x_minus_one(127);
  k->set_event_timed(true);
  auto* m = c.add_memcpys();
  m->set_start_delta_ns(-10);
  m->set_kind(static_cast<prof::proto::CopyKind>(42));  // newer than this reader
  m->set_src_kind(prof::proto::PINNED);
  m->set_src_device_id(1);
  m->set_dst_device_id(3);
  m->set_is_async(true);
  auto* r = c.add_nvtx_ranges();
  r->set_start_delta_ns(1);
  r->set_style(prof::proto::NvtxRange::START_END);
  r->set_color_argb(0xff00ff00);
  r->set_category(6);
  r->set_end_tid(12);
  auto* e = c.add_memory_events();
  e->set_time_delta_ns(7);
  e->set_operation(prof::proto::MemoryEvent::RELEASE);
  e->set_context_id(4);
  e->set_address(0x7000);
  auto* s = c.add_synchronizations();
  s->set_start_delta_ns(2);
  s->set_type(prof::proto::Synchronization::STREAM_WAIT_EVENT);
  s->set_device_id(1);
  auto* d = c.add_devices();
  d->set_id(1);
  d->set_core_clock_khz(1'755'000);
  d->set_uuid("0123456789abcdef");
  auto* ctx = c.add_contexts();
  ctx->set_id(1);
  ctx->set_null_stream_id(7);
  auto* p = c.mutable_process();
  p->set_rank(-1);
  p->add_command_line("train.py");
  p->add_command_line("--fast");
  p->mutable_clock_anchor()->set_realtime_ns(90);
  (*p->mutable_options())["PROF_STACKS"] = "native";

  TempFile f;
  f.write(CaptureFileWriter().chunk(c).bytes());
  RecordDecoder decoder;
  REQUIRE(decoder.open(f.path()));
  recorded::Chunk chunk;
  REQUIRE(decoder.next(chunk) == RecordDecoder::Next::kChunk);
  REQUIRE(chunk.kernels.size() == 1);
  CHECK(chunk.kernels[0].start_ns == 520);
  CHECK(chunk.kernels[0].local_memory_per_thread == 48);
  CHECK(chunk.kernels[0].graph_node_id == 1ull << 40);
  CHECK(chunk.kernels[0].block.x == 128);
  CHECK(chunk.kernels[0].event_timed);
  REQUIRE(chunk.memcpys.size() == 1);
  CHECK(chunk.memcpys[0].start_ns == 490);
  CHECK(static_cast<int>(chunk.memcpys[0].kind) == 42);
  CHECK(analyzer::schema_name(chunk.memcpys[0].kind).empty());
  CHECK(analyzer::schema_name(chunk.memcpys[0].src_kind) == "PINNED");
  CHECK((chunk.memcpys[0].src_device_id == 1 && chunk.memcpys[0].dst_device_id == 3 && chunk.memcpys[0].is_async));
  REQUIRE(chunk.nvtx_ranges.size() == 1);
  CHECK(chunk.nvtx_ranges[0].style == analyzer::NvtxRangeStyle::kStartEnd);
  CHECK(chunk.nvtx_ranges[0].color_argb == 0xff00ff00);
  CHECK(chunk.nvtx_ranges[0].category == 6);
  CHECK(chunk.nvtx_ranges[0].end_tid == 12);
  REQUIRE(chunk.memory_events.size() == 1);
  CHECK(chunk.memory_events[0].time_ns == 507);
  CHECK(chunk.memory_events[0].operation == analyzer::MemoryEventOperation::kRelease);
  CHECK(chunk.memory_events[0].context_id == 4);
  CHECK(chunk.memory_events[0].address == 0x7000);
  REQUIRE(chunk.synchronizations.size() == 1);
  CHECK(analyzer::schema_name(chunk.synchronizations[0].type) == "STREAM_WAIT_EVENT");
  CHECK(chunk.synchronizations[0].device_id == 1);
  REQUIRE(chunk.devices.size() == 1);
  CHECK(chunk.devices[0].core_clock_khz == 1'755'000);
  CHECK(chunk.devices[0].uuid == "0123456789abcdef");
  REQUIRE(chunk.contexts.size() == 1);
  CHECK(chunk.contexts[0].null_stream_id == 7);
  REQUIRE(chunk.process);
  CHECK(chunk.process->command_line == std::vector<std::string>{"train.py", "--fast"});
  REQUIRE(chunk.process->clock_anchor);
  CHECK(chunk.process->clock_anchor->realtime_ns == 90);
  CHECK(chunk.process->options.at("PROF_STACKS") == "native");
  CHECK_FALSE(chunk.drops);
  CHECK_FALSE(chunk.process_end);
}

TEST_CASE("A reused chunk holds only the next chunk's records", "[decoder]") {
  prof::proto::Chunk first;
  api_call(first, 1, 0, 1)->mutable_launch();
  api_call(first, 1, 0, 1);
  first.mutable_drops()->set_ring_full(3);
  prof::proto::Chunk second;
  api_call(second, 2, 0, 1);
  second.add_threads()->set_tid(2);

  TempFile f;
  f.write(CaptureFileWriter().chunk(first).chunk(second).bytes());
  RecordDecoder decoder;
  REQUIRE(decoder.open(f.path()));
  recorded::Chunk chunk;
  REQUIRE(decoder.next(chunk) == RecordDecoder::Next::kChunk);
  CHECK(chunk.api_calls.size() == 2);
  CHECK(chunk.api_calls[0].launch);
  REQUIRE(chunk.drops);
  REQUIRE(decoder.next(chunk) == RecordDecoder::Next::kChunk);
  REQUIRE(chunk.api_calls.size() == 1);
  CHECK(chunk.api_calls[0].tid == 2);
  CHECK(chunk.api_calls[0].correlation_id == 1);  // deltas restart in each chunk
  CHECK_FALSE(chunk.api_calls[0].launch);
  CHECK_FALSE(chunk.drops);
  CHECK(chunk.threads.size() == 1);
  CHECK(decoder.next(chunk) == RecordDecoder::Next::kEnd);
  CHECK(decoder.chunk_count() == 2);
}

namespace {

// A chunk with every kind of field the schema has: nested and repeated
// messages, packed and repeated bytes, a map, `string` fields, negative
// int32s, enums.
prof::proto::Chunk every_kind_of_field() {
  prof::proto::Chunk c;
  c.set_time_base_ns(1'000'000);
  auto* a = api_call(c, 7, 10, 5);
  a->set_return_code(-2);
  a->mutable_launch()->set_grid_x_minus_one(0xffffffffu);
  api_call(c, 0, -4, 1)->mutable_transfer()->set_kind(prof::proto::DEVICE_TO_HOST);
  c.add_kernels()->set_name_id(3);
  c.add_strings()->set_value("name");
  auto* s = c.add_stacks();
  s->set_id(2);
  for (uint64_t frame : {1ull, 300ull, 1ull << 40}) s->add_frame_ids(frame);
  auto* p = c.mutable_process();
  p->set_rank(-1);
  p->add_command_line("a.out");
  p->mutable_clock_anchor()->set_monotonic_ns(5);
  (*p->mutable_options())["PROF_STACKS"] = "native";
  auto* w = c.mutable_window();
  w->set_first_step(-1);
  w->set_step_rule("nvtx:^step$");
  w->set_trigger("schedule");
  c.mutable_process_end()->set_signal(15);
  return c;
}

// Appends "/a" or "/a,b" (built by appending: GCC 12's -Wrestrict misreads
// "x" + std::string at -O3).
void field(std::string& s, const std::string& a) {
  s += '/';
  s += a;
}
void field(std::string& s, const std::string& a, const std::string& b) {
  field(s, a);
  s += ',';
  s += b;
}
using std::to_string;

// What both readers agree a chunk holds: its list sizes and a few fields
// that go through each kind of decoding.
std::string summary(const prof::proto::Chunk& c) {
  std::string s = to_string(c.time_base_ns());
  for (const int size : {c.api_calls_size(), c.kernels_size(), c.strings_size(), c.stacks_size()})
    field(s, to_string(size));
  field(s, to_string(c.has_process()));
  field(s, to_string(c.has_window()));
  for (const auto& a : c.api_calls()) field(s, to_string(a.return_code()), to_string(a.has_launch()));
  for (const auto& st : c.stacks()) field(s, to_string(st.frame_ids_size()));
  if (c.has_process()) field(s, to_string(c.process().rank()), to_string(c.process().options_size()));
  if (c.has_window()) field(s, c.window().step_rule(), c.window().trigger());
  return s;
}
std::string summary(const recorded::Chunk& c) {
  std::string s = to_string(c.time_base_ns);
  for (const size_t size : {c.api_calls.size(), c.kernels.size(), c.strings.size(), c.stacks.size()})
    field(s, to_string(size));
  field(s, to_string(c.process.has_value()));
  field(s, to_string(c.window.has_value()));
  for (const auto& a : c.api_calls) field(s, to_string(a.return_code), to_string(a.launch.has_value()));
  for (const auto& st : c.stacks) field(s, to_string(st.frame_ids.size()));
  if (c.process) field(s, to_string(c.process->rank), to_string(c.process->options.size()));
  if (c.window) field(s, c.window->step_rule, c.window->trigger);
  return s;
}

}  // namespace

TEST_CASE("The decoder accepts and refuses the chunks libprotobuf does", "[decoder]") {
  // Mutated encodings of one chunk: bytes changed, inserted, removed, the
  // end cut off. Where libprotobuf parses one, so must the decoder, to the
  // same records; where it refuses one, the decoder refuses it too.
  google::protobuf::SetLogHandler(nullptr);  // its line about bad UTF-8
  const std::string original = every_kind_of_field().SerializeAsString();
  std::mt19937 random(20261122);
  int accepted = 0, refused = 0;
  recorded::Chunk ours;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = original;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const size_t at = random() % bytes.size();
      const auto value = static_cast<char>(random() % 4 == 0 ? 0x80 | (random() % 128) : random() % 256);
      switch (random() % 4) {
        case 0: bytes[at] = value; break;
        case 1: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), value); break;
        case 2: bytes.erase(at, 1); break;
        default: bytes.resize(at); break;
      }
    }
    prof::proto::Chunk theirs;
    const bool they_parse = theirs.ParseFromString(bytes);
    const bool we_parse = prof::analyzer::decode(bytes, ours);
    INFO("round " << round << ", " << bytes.size() << " bytes");
    REQUIRE(we_parse == they_parse);
    if (they_parse) {
      REQUIRE(summary(ours) == summary(theirs));
      ++accepted;
    } else {
      ++refused;
    }
  }
  // Both outcomes were tried many times over.
  CHECK(accepted > 1000);
  CHECK(refused > 1000);
}

TEST_CASE("The decoder refuses what libprotobuf refuses in `string` fields and groups", "[decoder]") {
  google::protobuf::SetLogHandler(nullptr);
  recorded::Chunk ours;
  auto agree = [&](const std::string& bytes) {
    prof::proto::Chunk theirs;
    const bool they_parse = theirs.ParseFromString(bytes);
    CHECK(prof::analyzer::decode(bytes, ours) == they_parse);
    return they_parse;
  };
  const std::string window_tag = "\xd2\x01";  // field 26, length-delimited
  auto window_with_rule = [&](const std::string& rule) {
    std::string body = "\x32";  // Window.step_rule, field 6
    body += varint(rule.size());
    body += rule;
    return window_tag + varint(body.size()) + body;
  };
  CHECK(agree(window_with_rule("nvtx:^step\xc3\xa9$")));
  CHECK_FALSE(agree(window_with_rule("\xc3")));          // cut short
  CHECK_FALSE(agree(window_with_rule("\xed\xa0\x80")));  // a surrogate
  CHECK_FALSE(agree(window_with_rule("\xc0\xaf")));      // overlong
  CHECK(agree(std::string("\x9b\x06\x08\x01\x9c\x06", 6)));  // an unknown group (field 99), closed
  CHECK_FALSE(agree(std::string("\x9b\x06\x08\x01", 4)));    // not closed
  CHECK_FALSE(agree(std::string("\x9c\x06", 2)));            // an end without a start
  CHECK(agree(std::string("\x08\x05\x0a\x00", 4)));  // time_base_ns also as bytes: skipped
}
