// Ring records as the capture code writes them, through the Translator, read
// back by libprotobuf: the writer thread's translation without its thread,
// files or /proc.
#include <catch2/catch.hpp>


#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "record/recorder.h"
#include "record/translator.h"
#include "../framed_chunk.h"
#include "proto/prof.pb.h"

namespace {

constexpr uint32_t kTid = 4242;
constexpr uint64_t kBase = 9'000'000'000;
const char kLaunchName[] = "cudaLaunchKernel";

std::string no_proc_name(uint32_t) { return {}; }
std::string proc_name(uint32_t tid) { return "proc-" + std::to_string(tid); }

struct Translated {
  explicit Translated(prof::Translator::ThreadNameSource names = no_proc_name) : translator(names) {
    buffer.set_name_at_start("at-start");
    chunk.begin(kBase);
  }

  void launch(uint64_t start, uint64_t end, uint32_t correlation, const std::string& kernel, uint32_t grid_x = 64,
              int32_t return_code = 0) {
    auto* r = prof::begin_record<prof::ApiCallRecord>(buffer, prof::RecordType::api_call,
                                                      static_cast<uint32_t>(kernel.size()));
    REQUIRE(r != nullptr);
    r->start_ticks = start;
    r->end_ticks = end;
    r->function_name = kLaunchName;
    r->correlation_id = correlation;
    r->return_code = return_code;
    r->domain = static_cast<uint16_t>(prof::file::ApiDomain::runtime);
    r->callback_id = 211;
    r->args = prof::ApiCallArgs::launch;
    r->copy_kind = 0;
    r->stack_depth = 0;
    r->python_depth = 0;
    r->stream = 0x7f00;
    r->bytes = 0;
    const uint32_t grid[3] = {grid_x, 2, 1}, block[3] = {256, 1, 1};
    std::memcpy(r->grid, grid, sizeof(grid));
    std::memcpy(r->block, block, sizeof(block));
    r->shared_bytes = 1024;
    r->kernel_name_bytes = static_cast<uint16_t>(kernel.size());
    std::memcpy(reinterpret_cast<char*>(r + 1), kernel.data(), kernel.size());
    buffer.commit();
  }

  void nvtx(prof::RecordType type, uint64_t time, const std::string& message = {}) {
    auto* r = prof::begin_record<prof::NvtxEventRecord>(buffer, type, static_cast<uint32_t>(message.size()));
    REQUIRE(r != nullptr);
    r->time_ticks = time;
    r->domain = nullptr;
    r->range_id = 0;
    r->color_argb = 0xFF00FF00;
    r->category = 3;
    std::memcpy(reinterpret_cast<char*>(r + 1), message.data(), message.size());
    buffer.commit();
  }

  void translate_all() {
    buffer.drain([&](const prof::RecordHeader& header) { translator.translate(buffer, header, chunk); });
  }

  prof::proto::Chunk finish() { return parse_framed(chunk.finish()); }

  prof::ThreadBuffer buffer{4096, kTid};
  prof::Translator translator;
  prof::ChunkEncoder chunk;
};

std::string string_of(const prof::proto::Chunk& chunk, uint64_t id) {
  for (const auto& s : chunk.strings()) {
    if (s.id() == id) return s.value();
  }
  return "<undefined>";
}

}  // namespace

TEST_CASE("a launch call becomes an ApiCall with its arguments, names interned once") {
  Translated t;
  t.launch(kBase + 100, kBase + 900, 7, "_Z6kernelv");
  t.launch(kBase + 1000, kBase + 1500, 8, "_Z6kernelv");
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();

  REQUIRE(chunk.threads_size() == 1);  // named once, with the fallback name
  CHECK(chunk.threads(0).tid() == kTid);
  CHECK(chunk.threads(0).name() == "at-start");
  REQUIRE(chunk.api_calls_size() == 2);
  const auto& a = chunk.api_calls(0);
  CHECK(a.tid() == kTid);
  CHECK(a.domain() == prof::proto::RUNTIME);
  CHECK(a.callback_id() == 211);
  CHECK(string_of(chunk, a.name_id()) == kLaunchName);
  CHECK(a.start_delta_ns() == 100);
  CHECK(a.duration_ns() == 800);
  CHECK(a.correlation_id_delta() == 7);
  CHECK(a.stack_id() == 0);
  REQUIRE(a.has_launch());
  CHECK(string_of(chunk, a.launch().kernel_name_id()) == "_Z6kernelv");
  CHECK(a.launch().grid_x_minus_one() == 63);
  CHECK(a.launch().grid_y_minus_one() == 1);
  CHECK(a.launch().block_x_minus_one() == 255);
  CHECK(a.launch().dynamic_shared_bytes() == 1024);
  CHECK(a.launch().stream() == 0x7f00);
  const auto& b = chunk.api_calls(1);
  CHECK(b.tid() == 0);  // the same thread again
  CHECK(b.correlation_id_delta() == 1);
  CHECK(b.name_id() == a.name_id());
  CHECK(b.launch().kernel_name_id() == a.launch().kernel_name_id());
  CHECK(chunk.strings_size() == 2);
}

TEST_CASE("a call that repeats the previous one has its own times and correlation id; others, their own fields") {
  // The writer writes a call that repeats the previous one but for its
  // times and correlation id as the previous call's bytes (ChunkEncoder::
  // add_call_repeat): a kernel name of another text at the same address (here
  // null, as these records leave it), another grid or return code must not
  // pass for a repeat.
  Translated t;
  t.launch(kBase + 100, kBase + 200, 1, "_Z6kernelv");
  t.launch(kBase + 300, kBase + 450, 2, "_Z6kernelv");
  t.launch(kBase + 500, kBase + 600, 3, "_Z6othervv");
  t.launch(kBase + 700, kBase + 800, 4, "_Z6othervv", 65);
  t.launch(kBase + 900, kBase + 950, 5, "_Z6othervv", 65, 2);
  t.launch(kBase + 1000, kBase + 1100, 9, "_Z6othervv", 65, 2);
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.api_calls_size() == 6);
  const auto& first = chunk.api_calls(0);
  for (int i = 0; i < 6; ++i) {
    const auto& call = chunk.api_calls(i);
    INFO("call " << i);
    CHECK(call.name_id() == first.name_id());
    CHECK(call.launch().grid_y_minus_one() == 1);
    CHECK(call.launch().block_x_minus_one() == 255);
    CHECK(call.launch().dynamic_shared_bytes() == 1024);
    CHECK(call.launch().stream() == 0x7f00);
  }
  const int64_t starts[] = {100, 200, 200, 200, 200, 100};  // deltas
  const uint64_t durations[] = {100, 150, 100, 100, 50, 100};
  const int64_t correlations[] = {1, 1, 1, 1, 1, 4};  // deltas
  const char* names[] = {"_Z6kernelv", "_Z6kernelv", "_Z6othervv", "_Z6othervv", "_Z6othervv", "_Z6othervv"};
  const uint32_t grids[] = {63, 63, 63, 64, 64, 64};  // minus one
  const int32_t returns[] = {0, 0, 0, 0, 2, 2};
  for (int i = 0; i < 6; ++i) {
    const auto& call = chunk.api_calls(i);
    INFO("call " << i);
    CHECK(call.start_delta_ns() == starts[i]);
    CHECK(call.duration_ns() == durations[i]);
    CHECK(call.correlation_id_delta() == correlations[i]);
    CHECK(string_of(chunk, call.launch().kernel_name_id()) == names[i]);
    CHECK(call.launch().grid_x_minus_one() == grids[i]);
    CHECK(call.return_code() == returns[i]);
  }
}

TEST_CASE("a thread is named from the name source when it has one") {
  Translated t(proc_name);
  t.nvtx(prof::RecordType::nvtx_mark, kBase + 5, "mark");
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.threads_size() == 1);
  CHECK(chunk.threads(0).name() == "proc-4242");
  REQUIRE(chunk.nvtx_marks_size() == 1);
  CHECK(string_of(chunk, chunk.nvtx_marks(0).name_id()) == "mark");
  CHECK(chunk.nvtx_marks(0).color_argb() == 0xFF00FF00);
}

TEST_CASE("NVTX push and pop pair into a range; a pop without a push is counted") {
  Translated t;
  t.nvtx(prof::RecordType::nvtx_push, kBase + 10, "step");
  t.nvtx(prof::RecordType::nvtx_pop, kBase + 60);
  t.nvtx(prof::RecordType::nvtx_pop, kBase + 70);
  t.nvtx(prof::RecordType::nvtx_push, kBase + 80, "open at the end");
  t.translate_all();
  CHECK(t.translator.unmatched_range_ends() == 1);
  t.translator.close_open_ranges(kBase + 100, t.chunk);
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.nvtx_ranges_size() == 2);
  const auto& closed = chunk.nvtx_ranges(0);
  CHECK(string_of(chunk, closed.name_id()) == "step");
  CHECK(closed.start_delta_ns() == 10);
  CHECK(closed.duration_ns() == 50);
  CHECK(closed.style() == prof::proto::NvtxRange::PUSH_POP);
  CHECK_FALSE(closed.unterminated());
  const auto& open = chunk.nvtx_ranges(1);
  CHECK(open.unterminated());
  CHECK(open.duration_ns() == 20);
}

TEST_CASE("a message cut to the payload limit counts as truncated") {
  Translated t;
  t.nvtx(prof::RecordType::nvtx_mark, kBase, std::string(prof::kMaxPayloadString, 'x'));
  t.nvtx(prof::RecordType::nvtx_mark, kBase, "short");
  t.translate_all();
  CHECK(t.translator.truncated_payloads() == 1);
}

TEST_CASE("a tensor memory record becomes a TensorMemoryEvent on its thread, times delta-encoded") {
  Translated t;
  auto tensor = [&](uint32_t action, uint64_t time, uint64_t bytes, uint64_t allocated) {
    auto* r = prof::begin_record<prof::TensorMemoryRecord>(t.buffer, prof::RecordType::tensor_memory, 0);
    REQUIRE(r != nullptr);
    r->time_ns = time;
    r->address = 0x7f0000001000;
    r->bytes = bytes;
    r->stream = 0x55;
    r->total_allocated = allocated;
    r->total_reserved = 2 << 20;
    r->device = 1;
    r->action = static_cast<uint16_t>(action);
    r->python_depth = 0;
    t.buffer.commit();
  };
  tensor(1, kBase + 40, 4096, 4096);
  tensor(2, kBase + 90, 4096, 0);
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.tensor_memory_events_size() == 2);
  const auto& alloc = chunk.tensor_memory_events(0);
  CHECK(alloc.action() == prof::proto::TensorMemoryEvent::ALLOC);
  CHECK(alloc.time_delta_ns() == 40);
  CHECK(alloc.device() == 1);
  CHECK(alloc.stream() == 0x55);
  CHECK(alloc.address() == 0x7f0000001000);
  CHECK(alloc.bytes() == 4096);
  CHECK(alloc.tid() == kTid);
  CHECK(alloc.total_allocated() == 4096);
  CHECK(alloc.total_reserved() == 2 << 20);
  const auto& freed = chunk.tensor_memory_events(1);
  CHECK(freed.action() == prof::proto::TensorMemoryEvent::FREE);
  CHECK(freed.time_delta_ns() == 50);
  CHECK(freed.total_allocated() == 0);
}

// A cudaMemset call record whose stack is `frames` (PythonFrames or native
// return addresses), 10 ticks after the previous correlation id's.
template <typename FrameType>
void write_memset_call(Translated& t, uint32_t correlation, const std::vector<FrameType>& frames) {
  const auto bytes = static_cast<uint32_t>(frames.size() * sizeof(FrameType));
  auto* r = prof::begin_record<prof::ApiCallRecord>(t.buffer, prof::RecordType::api_call, bytes);
  REQUIRE(r != nullptr);
  // Zero everything after the header begin_record wrote.
  std::memset(reinterpret_cast<char*>(r) + sizeof(r->header), 0, sizeof(*r) - sizeof(r->header));
  r->start_ticks = kBase + correlation * 10;
  r->end_ticks = kBase + correlation * 10 + 5;
  r->function_name = "cudaMemset";
  r->correlation_id = correlation;
  r->domain = static_cast<uint16_t>(prof::file::ApiDomain::runtime);
  r->callback_id = 20;
  r->args = prof::ApiCallArgs::none;
  if constexpr (std::is_same_v<FrameType, prof::PythonFrame>) {
    r->python_depth = static_cast<uint16_t>(frames.size());
  } else {
    r->stack_depth = static_cast<uint16_t>(frames.size());
  }
  if (bytes != 0) std::memcpy(reinterpret_cast<char*>(r + 1), frames.data(), bytes);
  t.buffer.commit();
}

TEST_CASE("calls from the same Python frames share a stack; a call from other frames does not") {
  Translated t;
  auto call = [&](uint32_t correlation, std::vector<prof::PythonFrame> python) {
    write_memset_call(t, correlation, python);
  };
  const prof::PythonFrame leaf{1, 10};
  const prof::PythonFrame root{2 | prof::PythonFrame::kEntryBit, 3};
  // The writer keeps the previous call's frames and id: the same frames
  // twice, then the same depth with another line (the id must change), then
  // the first frames again, after another stack.
  call(1, {leaf, root});
  call(2, {leaf, root});
  call(3, {prof::PythonFrame{1, 11}, root});
  call(4, {leaf, root});
  call(5, {leaf});
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.api_calls_size() == 5);
  const uint64_t first = chunk.api_calls(0).stack_id();
  CHECK(first != 0);
  CHECK(chunk.api_calls(1).stack_id() == first);
  CHECK(chunk.api_calls(2).stack_id() != first);
  CHECK(chunk.api_calls(2).stack_id() != 0);
  CHECK(chunk.api_calls(3).stack_id() == first);
  CHECK(chunk.api_calls(4).stack_id() != first);
  CHECK(chunk.stacks_size() == 3);
}

TEST_CASE("calls from the same native frames share a stack; a call from other frames does not") {
  Translated t;
  auto call = [&](uint32_t correlation, std::vector<uint64_t> frames) { write_memset_call(t, correlation, frames); };
  // The writer keeps the previous call's frames and id: the same frames
  // twice, the same depth with another return address, the first frames
  // again, a shorter stack, none, and the first again.
  call(1, {0x1010, 0x2020, 0x3030});
  call(2, {0x1010, 0x2020, 0x3030});
  call(3, {0x1010, 0x2021, 0x3030});
  call(4, {0x1010, 0x2020, 0x3030});
  call(5, {0x1010, 0x2020});
  call(6, {});
  call(7, {0x1010, 0x2020, 0x3030});
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.api_calls_size() == 7);
  const uint64_t first = chunk.api_calls(0).stack_id();
  CHECK(first != 0);
  CHECK(chunk.api_calls(1).stack_id() == first);
  CHECK(chunk.api_calls(2).stack_id() != first);
  CHECK(chunk.api_calls(2).stack_id() != 0);
  CHECK(chunk.api_calls(3).stack_id() == first);
  CHECK(chunk.api_calls(4).stack_id() != first);
  CHECK(chunk.api_calls(4).stack_id() != chunk.api_calls(2).stack_id());
  CHECK(chunk.api_calls(5).stack_id() == 0);
  CHECK(chunk.api_calls(6).stack_id() == first);
  CHECK(chunk.stacks_size() == 3);
}

TEST_CASE("with a calibration, the app thread's host ticks become CLOCK_MONOTONIC ns in the file") {
  Translated t;
  // 2.5 ticks per ns: the chunk begins at kBase ns, which is 1,000,000 ticks.
  prof::TickCalibration clock(false);
  clock.add({1'000'000, kBase});
  clock.add({1'000'000 + 25'000'000, kBase + 10'000'000});
  t.translator.use_clock(&clock);
  t.launch(1'000'250, 1'002'250, 7, "_Z6kernelv");  // 100 ns after kBase, for 800 ns
  t.nvtx(prof::RecordType::nvtx_push, 1'000'000 + 2'500, "step");
  t.nvtx(prof::RecordType::nvtx_pop, 1'000'000 + 5'000);
  t.translate_all();
  const prof::proto::Chunk chunk = t.finish();
  REQUIRE(chunk.api_calls_size() == 1);
  CHECK(chunk.api_calls(0).start_delta_ns() == 100);
  CHECK(chunk.api_calls(0).duration_ns() == 800);
  REQUIRE(chunk.nvtx_ranges_size() == 1);
  CHECK(chunk.nvtx_ranges(0).start_delta_ns() == 1'000);
  CHECK(chunk.nvtx_ranges(0).duration_ns() == 1'000);
}
