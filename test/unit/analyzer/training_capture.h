#pragma once
// A synthetic training loop with exactly known GPU durations, for the
// golden CUDA tests, the schedule windows and --step auto:
//   setup: cudaMalloc x2 (device memory events)
//   per step i (10 us apart... see kStepNs): an NVTX range "ProfilerStep#i"
//   around a CPU-only "load" range, a cudaMemcpyAsync (H2D copy), five
//   cudaLaunchKernel calls (kernels k0..k4) and a cudaDeviceSynchronize.
// Kernel j of step i lasts kernel_ns(i, j); the last kernel of a step runs
// past the step's end, so membership by launch is visible.
#include <cstdint>
#include <string>

#include "capture_file_writer.h"

namespace prof::testing {

struct TrainingCapture {
  static constexpr uint32_t kTid = 100;
  static constexpr uint64_t kStart = 1'000'000;
  static constexpr uint64_t kStepNs = 100'000;
  static constexpr uint64_t kCopyNs = 3'000;
  static constexpr int kKernels = 5;
  // String ids.
  enum : uint64_t { kLoad = 1, kMemcpy, kLaunch, kSync, kMalloc, kFree, kK0 };  // kK0..kK0+4: kernels
  static constexpr uint64_t kStepName0 = 100;  // ProfilerStep#i: kStepName0 + i

  static uint64_t kernel_ns(int step, int j) { return 1'000 + 100 * static_cast<uint64_t>(j) + static_cast<uint64_t>(step); }
  static uint64_t step_start(int step) { return kStart + 50'000 + kStepNs * static_cast<uint64_t>(step); }

  // With annotate=false no NVTX range is written (for --step auto).
  static std::string bytes(int steps, bool annotate = true) {
    ChunkBuilder c(kStart);
    c.process(1, kStart);
    c.string(kLoad, "load").string(kMemcpy, "cudaMemcpyAsync").string(kLaunch, "cudaLaunchKernel");
    c.string(kSync, "cudaDeviceSynchronize").string(kMalloc, "cudaMalloc").string(kFree, "cudaFree");
    for (int j = 0; j < kKernels; ++j) c.string(kK0 + j, "_Z7kernel" + std::to_string(j) + "v");
    uint32_t corr = 1;
    for (int m = 0; m < 2; ++m) {
      const uint64_t t = kStart + 1'000 + 10'000 * static_cast<uint64_t>(m);
      c.api_call(kTid, kMalloc, t, t + 5'000, corr);
      auto& e = c.memory_event(t + 1'000, 1u << 20);
      e.set_correlation_id(corr);
      e.set_memory_kind(prof::proto::DEVICE);
      ++corr;
    }
    for (int i = 0; i < steps; ++i) {
      const uint64_t s = step_start(i);
      if (annotate) {
        c.string(kStepName0 + static_cast<uint64_t>(i), "ProfilerStep#" + std::to_string(i));
        c.range(kTid, kStepName0 + static_cast<uint64_t>(i), s, s + kStepNs - 10'000);
        c.range(kTid, kLoad, s + 1'000, s + 20'000);
      }
      c.api_call(kTid, kMemcpy, s + 21'000, s + 22'000, corr);
      c.memcpy(s + 22'000, s + 22'000 + kCopyNs, 4096, corr);
      ++corr;
      uint64_t gpu = s + 26'000;
      for (int j = 0; j < kKernels; ++j) {
        const uint64_t t = s + 30'000 + 2'000 * static_cast<uint64_t>(j);
        auto& launch = c.api_call(kTid, kLaunch, t, t + 1'000, corr);
        launch.mutable_launch()->set_grid_x_minus_one(63);
        launch.mutable_launch()->set_block_x_minus_one(127);
        const uint64_t begin = std::max(gpu, t + 500);
        // The last kernel of a step starts after the step's range ended.
        const uint64_t at = j == kKernels - 1 ? s + kStepNs - 5'000 : begin;
        auto& k = c.kernel(kK0 + static_cast<uint64_t>(j), at, at + kernel_ns(i, j), corr);
        k.set_grid_x_minus_one(63);
        k.set_block_x_minus_one(127);
        gpu = at + kernel_ns(i, j);
        ++corr;
      }
      c.api_call(kTid, kSync, s + 45'000, s + 60'000);
    }
    const uint64_t end = step_start(steps) + 10'000;
    c.api_call(kTid, kFree, end, end + 2'000, corr);
    auto& f = c.memory_event(end + 1'000, 1u << 20);
    f.set_operation(prof::proto::MemoryEvent::RELEASE);
    f.set_correlation_id(corr);
    f.set_memory_kind(prof::proto::DEVICE);
    c.process_end(end + 5'000);
    return CaptureFileWriter().chunk(c.finish()).bytes();
  }
};

}  // namespace prof::testing
