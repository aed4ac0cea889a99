#pragma once
// The fixed capture behind advise's golden outputs (golden/advise*.txt): four
// ProfilerStep#N steps of 1 ms on one thread, each
//   a 1.2 MB upload from pageable memory (cudaMemcpyAsync, 200 us on the GPU),
//   two kernel launches from train_step (300 us and 200 us),
//   a 4-byte blocking read of the loss from read_loss (2 us), after which the
//   host logs until the next step while the GPU has nothing queued,
// steps 1 and 2 also allocate and free a 1 MiB buffer; call stacks are
// Python frames over libcudart. Every number in the goldens follows from
// these times by hand.
#include <string>

#include "capture_file_writer.h"

namespace prof::testing {

inline std::string advise_capture_bytes() {
  using prof::proto::Frame;
  constexpr uint32_t kMain = 7;
  CaptureFileWriter file(make_header(2, 0, "libprof 0.1.0"));
  ChunkBuilder c(1'000'000);
  auto& p = c.process(100, 1'000'000);
  p.set_executable("/usr/bin/python3");
  c.thread(kMain, "python3");
  auto* device = c.raw().add_devices();
  device->set_id(0);
  device->set_name("Simulated GPU");
  device->set_global_memory_bytes(80ull << 30);

  c.string(1, "ProfilerStep#0").string(2, "ProfilerStep#1").string(3, "ProfilerStep#2").string(4, "ProfilerStep#3");
  c.string(5, "cudaMemcpy").string(6, "cudaLaunchKernel").string(7, "_Z7forwardPf").string(8, "_Z8backwardPf");
  c.string(9, "model.py").string(10, "train_step").string(11, "read_loss").string(12, "load_batch");
  c.string(13, "cudaMalloc").string(14, "cudaFree").string(15, "cudaMemcpyAsync");

  auto* m = c.raw().add_modules();
  m->set_id(1);
  m->set_path("/usr/local/cuda/lib64/libcudart.so.13");
  m->set_load_address(0x7f0000000000);
  m->set_size(0x100000);
  m->set_bias(0x7f0000000000);
  auto* cudart = c.raw().add_frames();
  cudart->set_id(1);
  cudart->set_kind(Frame::NATIVE);
  cudart->set_address(0x7f0000001234);
  cudart->set_module_id(1);
  auto python = [&](uint64_t id, uint64_t function, uint32_t line) {
    auto* f = c.raw().add_frames();
    f->set_id(id);
    f->set_kind(Frame::PYTHON);
    f->set_function_name_id(function);
    f->set_file_name_id(9);
    f->set_line(line);
  };
  python(2, 10, 42);  // train_step
  python(3, 11, 57);  // read_loss
  python(4, 12, 30);  // load_batch
  auto stack = [&](uint64_t id, std::initializer_list<uint64_t> frames) {
    auto* s = c.raw().add_stacks();
    s->set_id(id);
    for (uint64_t f : frames) s->add_frame_ids(f);
  };
  stack(1, {1, 2});     // a launch in train_step
  stack(2, {1, 3, 2});  // the read in read_loss, called by train_step
  stack(3, {1, 4, 2});  // the upload in load_batch

  uint32_t corr = 1;
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t s = 1'000'000 + k * 1'000'000;
    c.range(kMain, 1 + k, s, s + 1'000'000);
    // Upload: from pageable memory, so the call returns only after its copy.
    c.api_call(kMain, 15, s, s + 210'000, corr).set_stack_id(3);
    c.memcpy(s + 5'000, s + 205'000, 1'200'000, corr).set_stream_id(7);
    ++corr;
    if (k == 1 || k == 2) {
      c.api_call(kMain, 13, s + 212'000, s + 215'000, corr).set_stack_id(1);
      auto& a = c.memory_event(s + 214'000, 1 << 20);
      a.set_memory_kind(prof::proto::DEVICE);
      a.set_correlation_id(corr);
      ++corr;
    }
    c.api_call(kMain, 6, s + 220'000, s + 225'000, corr).set_stack_id(1);
    c.kernel(7, s + 230'000, s + 530'000, corr).set_grid_x_minus_one(127);
    ++corr;
    c.api_call(kMain, 6, s + 230'000, s + 235'000, corr).set_stack_id(1);
    c.kernel(8, s + 530'000, s + 730'000, corr).set_grid_x_minus_one(127);
    ++corr;
    // The read: blocks until the backward kernel and its own copy are done.
    c.api_call(kMain, 5, s + 240'000, s + 735'000, corr).set_stack_id(2);
    auto& read = c.memcpy(s + 730'000, s + 732'000, 4, corr);
    read.set_stream_id(7);
    read.set_kind(prof::proto::DEVICE_TO_HOST);
    read.set_src_kind(prof::proto::DEVICE);
    read.set_dst_kind(prof::proto::PINNED);
    ++corr;
    if (k == 1 || k == 2) {
      c.api_call(kMain, 14, s + 740'000, s + 760'000, corr).set_stack_id(1);
      auto& f = c.memory_event(s + 750'000, 1 << 20);
      f.set_operation(prof::proto::MemoryEvent::RELEASE);
      f.set_memory_kind(prof::proto::DEVICE);
      f.set_correlation_id(corr);
      ++corr;
    }
  }
  c.process_end(5'500'000);
  file.chunk(c.finish());
  return file.bytes();
}

}  // namespace prof::testing
