#pragma once
// The fixed capture behind the stacks, flamegraph and trace tests: two
// ProfilerSteps on thread 7 with nested ranges, runtime and driver launches
// with native and Python frames (CUDA library frames at the leaf end), a
// copy, a set, memory, a start/end range on thread 8, a kernel with no
// recorded launch, and names that need escaping. Times are in ns.
#include <cstdint>
#include <string>

#include "capture_file_writer.h"

namespace prof::testing {

struct ViewsCaptureOptions {
  uint32_t pid = 4242;
  int32_t rank = 0;
  uint64_t realtime_offset_ns = 1'700'000'000'000'000'000ull;  // realtime - monotonic
};

inline std::string views_capture(const ViewsCaptureOptions& o = {}) {
  using prof::proto::Frame;
  ChunkBuilder c(0);
  auto& process = c.process(o.pid, 0);
  process.set_hostname("node1");
  process.set_executable("/opt/app/bin/train");
  process.set_rank(o.rank);
  process.set_world_size(2);
  process.mutable_clock_anchor()->set_monotonic_ns(0);
  process.mutable_clock_anchor()->set_realtime_ns(o.realtime_offset_ns);
  c.thread(7, "main").thread(8, "loader");
  auto* device = c.raw().add_devices();
  device->set_id(0);
  device->set_name("Simulated GPU");
  device->set_sm_count(100);
  device->set_warp_size(32);
  device->set_global_memory_bytes(80ull << 30);
  // An H100's limits, for the occupancy estimate.
  device->set_compute_major(9);
  device->set_max_threads_per_block(1024);
  device->set_max_registers_per_block(65536);
  device->set_max_shared_memory_per_block(49152);
  device->set_max_warps_per_multiprocessor(64);
  device->set_max_blocks_per_multiprocessor(32);
  device->set_max_registers_per_multiprocessor(65536);
  device->set_max_shared_memory_per_multiprocessor(233472);

  c.string(1, "ProfilerStep#0").string(2, "ProfilerStep#1").string(3, "forward").string(4, "cudaLaunchKernel");
  c.string(5, "_Z6matmulPfS_i").string(6, "cudaMemcpyAsync").string(7, "cuLaunchKernel");
  c.string(8, "relu \"fast\" kernel;v2").string(9, "data load").string(10, "model.py").string(11, "train_step");
  c.string(12, "cudaMemsetAsync").string(13, "cudaMalloc").string(14, "myLib").string(15, "prefetch;\tbatch");

  auto module = [&](uint64_t id, const char* path, uint64_t load, uint64_t bias) {
    auto* m = c.raw().add_modules();
    m->set_id(id);
    m->set_path(path);
    m->set_load_address(load);
    m->set_size(0x100000);
    m->set_bias(bias);
  };
  module(1, "/opt/app/bin/train", 0x400000, 0);
  module(2, "/usr/local/cuda/lib64/libcudart.so.13", 0x7f0000000000, 0x7f0000000000);
  module(3, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x7f1000000000, 0x7f1000000000);
  auto native = [&](uint64_t id, uint64_t address, uint64_t module_id) {
    auto* f = c.raw().add_frames();
    f->set_id(id);
    f->set_kind(Frame::NATIVE);
    f->set_address(address);
    f->set_module_id(module_id);
  };
  native(1, 0x7f0000001234, 2);  // in libcudart
  native(2, 0x7f1000000100, 3);  // in libcuda
  native(3, 0x401000, 1);
  native(4, 0x402000, 1);
  native(6, 0x403000, 1);  // main
  auto* py = c.raw().add_frames();
  py->set_id(5);
  py->set_kind(Frame::PYTHON);
  py->set_function_name_id(11);
  py->set_file_name_id(10);
  py->set_line(42);
  auto stack = [&](uint64_t id, std::initializer_list<uint64_t> frames) {
    auto* s = c.raw().add_stacks();
    s->set_id(id);
    for (uint64_t f : frames) s->add_frame_ids(f);
  };
  stack(1, {1, 3, 5, 4, 6});     // innermost first: libcudart, train+0x401000, train_step, ...
  stack(2, {2, 1, 3, 5, 4, 6});  // the driver call under it
  stack(3, {3, 6});

  auto kernel = [&](uint64_t name, uint64_t start, uint64_t end, uint32_t correlation) {
    auto& k = c.kernel(name, start, end, correlation);
    k.set_grid_x_minus_one(127);
    k.set_block_x_minus_one(255);
    k.set_registers_per_thread(32);
    k.set_static_shared_bytes(1024);
    return &k;
  };
  // Step 0 on thread 7.
  c.range(7, 1, 1000, 11000);
  c.range(7, 3, 2000, 8000);
  c.api_call(7, 4, 3000, 5000, 1).set_stack_id(1);
  auto& driver = c.api_call(7, 7, 3500, 4500, 2);
  driver.set_stack_id(2);
  driver.set_domain(prof::proto::DRIVER);
  kernel(5, 5000, 7000, 1);
  c.api_call(7, 6, 6000, 7000, 3).set_stack_id(3);
  c.memcpy(7500, 9500, 4'000'000, 3).set_stream_id(7);
  c.api_call(7, 13, 9000, 9500, 4);
  auto& alloc = c.memory_event(9200, 1 << 20);
  alloc.set_device_id(0);
  alloc.set_memory_kind(prof::proto::DEVICE);
  alloc.set_correlation_id(4);
  // Step 1.
  c.range(7, 2, 11000, 21000);
  c.api_call(7, 4, 12000, 13000, 5).set_stack_id(1);
  kernel(8, 13000, 13600, 5);
  c.api_call(7, 4, 14000, 15000, 6).set_stack_id(1);
  kernel(5, 15000, 19000, 6);
  c.api_call(7, 12, 16000, 16500, 7);
  c.memset(19000, 19600, 4096, 7).set_stream_id(9);
  auto& release = c.memory_event(20000, 1 << 20);
  release.set_operation(prof::proto::MemoryEvent::RELEASE);
  release.set_memory_kind(prof::proto::DEVICE);
  // Thread 8: a start/end range in a domain, a push/pop range with a name
  // that breaks folded lines.
  c.range(8, 9, 1500, 12500, prof::proto::NvtxRange::START_END, 14);
  c.range(8, 15, 2000, 3000);
  // GPU work whose launch was not recorded.
  kernel(5, 21000, 22000, 99);
  c.process_end(23000);
  CaptureFileWriter file;
  file.chunk(c.finish());
  return file.bytes();
}

}  // namespace prof::testing
