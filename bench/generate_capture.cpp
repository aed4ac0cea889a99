// Writes a realistic capture file of a chosen size with the agent's own
// ChunkEncoder, for the analyzer benchmark: a training-like loop on two
// threads, each step an NVTX range ("ProfilerStep#N") holding forward and
// backward ranges of kernel launches. Every launch is a runtime call
// (__cudaLaunchKernel, with a native call stack and launch arguments)
// nesting a driver call (cuLaunchKernel), and a kernel correlated to both;
// every step also copies a batch in (cudaMemcpyAsync + its memcpy) and
// synchronises. Chunks close at the writer's size limit (4 MiB), as a real
// recording's do.
//
// Usage: bench_generate_capture OUTPUT EVENTS
// Prints the number of events (API calls + GPU records + NVTX ranges) written.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "encode/chunk_encoder.h"

namespace {

using namespace prof;

constexpr size_t kChunkBytesLimit = 4u << 20;  // record/writer.cpp's limit
constexpr uint32_t kThreads = 2;
constexpr uint32_t kLaunchesPerPhase = 24;  // forward and backward each
constexpr uint32_t kStacks = 64;
constexpr uint32_t kStackDepth = 16;
constexpr uint32_t kFramesPerModule = 64;

// Deterministic, cheap: the same file every run.
struct Random {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  uint32_t next(uint32_t bound) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<uint32_t>(state % bound);
  }
};

// Valid Itanium manglings (the analyzer demangles them), torch-like templates.
const char* const kKernelNames[] = {
    "_Z11gemm_kernelILi128ELi128ELi32EEvPKfS1_Pfiiiff",
    "_Z11gemm_kernelILi64ELi64ELi16EEvPKfS1_Pfiiiff",
    "_Z14softmax_kernelIfLi1024EEvPKT_PS0_ii",
    "_Z16layernorm_kernelIfEvPKT_S2_S2_PS0_iif",
    "_Z11relu_kernelIfEvPKT_PS0_i",
    "_Z16attention_kernelIfLi64ELi128EEvPKT_S2_S2_PS0_iiif",
    "_Z11adam_kernelIfEvPT_S1_S1_PKS0_ffffiii",
    "_Z14dropout_kernelIfEvPKT_PS0_Phfyi",
    "_Z20embedding_bag_kernelIfEvPKlPKT_PS2_ii",
    "_Z15gelu_bwd_kernelIfEvPKT_S2_PS0_i",
    "_Z16transpose_kernelIfLi32ELi8EEvPT_PKS0_ii",
};
constexpr uint32_t kKernelCount = sizeof(kKernelNames) / sizeof(kKernelNames[0]);

const char* const kModules[] = {
    "/opt/bench/bin/train", "/opt/bench/lib/libtorch_cuda.so", "/opt/bench/lib/libtorch_cpu.so",
    "/opt/bench/lib/libc10.so", "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/opt/bench/lib/libcudart.so.13",
};
constexpr uint32_t kModuleCount = sizeof(kModules) / sizeof(kModules[0]);

class Generator {
 public:
  Generator(FILE* out, uint64_t target_events) : out_(out), target_(target_events) {}

  void run() {
    write(encode_file_preamble("libprof bench generator"));
    chunk_.begin(now_);
    define_process();
    for (uint64_t step = 0; events_ < target_; ++step) {
      for (uint32_t t = 0; t < kThreads && events_ < target_; ++t) emit_step(step, t);
    }
    file::ProcessEnd end;
    end.end_ns = now_ + 1'000'000;
    end.reason = file::ProcessEnd::Reason::exit;
    chunk_.set(file::DropCounts{});
    chunk_.set(end);
    write(chunk_.finish());
  }

  uint64_t events() const { return events_; }

 private:
  void write(const std::string& bytes) {
    if (fwrite(bytes.data(), 1, bytes.size(), out_) != bytes.size()) {
      perror("bench_generate_capture: write");
      exit(1);
    }
  }

  void maybe_close_chunk() {
    if (chunk_.pending_bytes() < kChunkBytesLimit) return;
    write(chunk_.finish());
    chunk_.begin(now_);
  }

  void define_process() {
    file::Process process;
    process.pid = 4242;
    process.parent_pid = 1;
    process.hostname = "bench";
    process.executable = kModules[0];
    process.command_line = {kModules[0], "--steps", "many"};
    process.rank = -1;  // no rank variable
    process.world_size = -1;
    process.has_clock_anchor = true;
    process.clock_anchor = {1'700'000'000'000'000'000ull, now_};
    process.start_ns = now_;
    process.options = {{"stacks", "native"}, {"generator", "bench_generate_capture"}};
    chunk_.set(process);
    for (uint32_t t = 0; t < kThreads; ++t) {
      chunk_.add(file::Thread{tid(t), t == 0 ? "train" : "pt_autograd_0"});
    }
    file::Device device;
    device.id = 0;
    device.name = "bench GPU 0";
    device.global_memory_bytes = 80ull << 30;
    device.compute_major = 9;
    device.sm_count = 132;
    device.warp_size = 32;
    chunk_.add(device);
    chunk_.add(file::Context{1, 0, 7});
    // Strings: API names, kernels, NVTX names.
    chunk_.add_string(kRuntimeLaunch, "__cudaLaunchKernel");
    chunk_.add_string(kDriverLaunch, "cuLaunchKernel");
    chunk_.add_string(kMemcpyAsync, "cudaMemcpyAsync");
    chunk_.add_string(kDriverMemcpy, "cuMemcpyHtoDAsync_v2");
    chunk_.add_string(kStreamSync, "cudaStreamSynchronize");
    chunk_.add_string(kForward, "forward");
    chunk_.add_string(kBackward, "backward");
    for (uint32_t k = 0; k < kKernelCount; ++k) chunk_.add_string(kKernelBase + k, kKernelNames[k]);
    // Modules that do not exist here: the analyzer names their frames
    // module+0xOFFSET, as for a file analyzed on another machine.
    for (uint32_t m = 0; m < kModuleCount; ++m) {
      file::Module module;
      module.id = m + 1;
      module.path = kModules[m];
      module.load_address = 0x7f0000000000ull + uint64_t{m} * 0x10000000ull;
      module.size = 0x1000000;
      module.bias = module.load_address;
      chunk_.add(module);
    }
    for (uint32_t m = 0; m < kModuleCount; ++m) {
      for (uint32_t f = 0; f < kFramesPerModule; ++f) {
        file::Frame frame;
        frame.id = 1 + m * kFramesPerModule + f;
        frame.kind = file::Frame::Kind::native;
        frame.address = 0x7f0000000000ull + uint64_t{m} * 0x10000000ull + 0x1000 + f * 0x340;
        frame.module_id = m + 1;
        chunk_.add(frame);
      }
    }
    // Stacks, leaf first: libcudart, torch's launch wrappers, the model's
    // code, main and libc at the root; they share their roots like real ones.
    for (uint32_t s = 0; s < kStacks; ++s) {
      file::Stack stack;
      stack.id = s + 1;
      for (uint32_t d = 0; d < kStackDepth; ++d) {
        const uint32_t module = d < 2 ? 5 : d < 8 ? 1 : d < 12 ? 2 : d < 14 ? 0 : 4;
        const uint32_t frame = d < 8 ? (s * 7 + d) % kFramesPerModule : (s / 8 + d) % kFramesPerModule;
        stack.frame_ids.push_back(1 + module * kFramesPerModule + frame);
      }
      chunk_.add(stack);
    }
  }

  static uint32_t tid(uint32_t thread) { return 1000 + thread; }

  // One step of one thread: ProfilerStep#N holding a copy, forward and
  // backward phases of launches, and a stream synchronisation.
  void emit_step(uint64_t step, uint32_t t) {
    const uint64_t step_start = now_;
    const uint64_t step_name = intern_step_name(step);
    const uint32_t stream = 13 + t;

    // Copy a batch in.
    const uint32_t copy_corr = ++correlation_;
    const uint64_t copy_start = advance(800);
    api_call(t, file::ApiDomain::runtime, 41, kMemcpyAsync, copy_start, copy_start + 3000, copy_corr,
             1 + random_.next(kStacks), nullptr, 1 << 22, stream);
    api_call(t, file::ApiDomain::driver, 279, kDriverMemcpy, copy_start + 500, copy_start + 2500, copy_corr, 0,
             nullptr, 1 << 22, stream);
    now_ = copy_start + 3000;
    file::Memcpy copy;
    copy.context_id = 1;
    copy.stream_id = stream;
    copy.correlation_id = copy_corr;
    const uint64_t copy_gpu_start = gpu_start(t, now_);
    const Span copy_span{copy_gpu_start, copy_gpu_start + 170'000};
    gpu_free_[t] = copy_span.end_ns;
    copy.bytes = 1 << 22;
    copy.kind = file::CopyKind::host_to_device;
    copy.src_kind = file::MemoryKind::pinned;
    copy.dst_kind = file::MemoryKind::device;
    copy.is_async = true;
    chunk_.add(copy, copy_span);
    ++events_;

    emit_phase(t, kForward, stream);
    emit_phase(t, kBackward, stream);

    const uint32_t sync_corr = ++correlation_;
    const uint64_t sync_start = advance(500);
    const uint64_t sync_end = std::max(sync_start + 2000, gpu_free_[t] + 1500);
    api_call(t, file::ApiDomain::runtime, 131, kStreamSync, sync_start, sync_end, sync_corr,
             1 + random_.next(kStacks), nullptr, 0, stream);
    now_ = sync_end;

    push_pop_range(t, step_name, step_start, advance(300), 0);
    maybe_close_chunk();
  }

  void emit_phase(uint32_t t, uint64_t name, uint32_t stream) {
    const uint64_t start = advance(400);
    for (uint32_t i = 0; i < kLaunchesPerPhase; ++i) {
      const uint32_t corr = ++correlation_;
      const uint32_t kernel = random_.next(kKernelCount);
      const uint64_t call_start = advance(1500 + random_.next(3000));
      file::LaunchArgs launch;
      launch.kernel_name_id = kKernelBase + kernel;
      const uint32_t grid[3] = {128u << (kernel % 4), 1, 1};
      const uint32_t block[3] = {256, 1, 1};
      set_dims(launch, grid, block);
      launch.dynamic_shared_bytes = kernel % 3 == 0 ? 16384 : 0;
      launch.stream = 0x55550000 + stream;
      const uint64_t call_end = call_start + 2500 + random_.next(1500);
      api_call(t, file::ApiDomain::runtime, 502, kRuntimeLaunch, call_start, call_end, corr,
               1 + random_.next(kStacks), &launch, 0, stream);
      api_call(t, file::ApiDomain::driver, 307, kDriverLaunch, call_start + 600, call_end - 300, corr, 0, &launch,
               0, stream);
      now_ = call_end;
      file::Kernel k;
      k.context_id = 1;
      k.stream_id = stream;
      k.correlation_id = corr;
      k.name_id = kKernelBase + kernel;
      const uint64_t kernel_start = gpu_start(t, call_end);
      const Span kernel_span{kernel_start, kernel_start + 3000 + random_.next(60'000)};
      gpu_free_[t] = kernel_span.end_ns;
      set_dims(k, grid, block);
      k.registers_per_thread = 32 + 8 * (kernel % 5);
      k.dynamic_shared_bytes = launch.dynamic_shared_bytes;
      chunk_.add(k, kernel_span);
      ++events_;
    }
    push_pop_range(t, name, start, advance(200), 1);
  }

  void push_pop_range(uint32_t t, uint64_t name, uint64_t start, uint64_t end, uint32_t depth) {
    file::NvtxRange range;
    range.tid = range.end_tid = tid(t);
    range.name_id = name;
    range.style = file::NvtxRange::Style::push_pop;
    range.depth = depth;
    chunk_.add(range, {start, end});
    ++events_;
  }

  void api_call(uint32_t t, file::ApiDomain domain, uint32_t cbid, uint64_t name, uint64_t start, uint64_t end,
                uint32_t corr, uint64_t stack, const file::LaunchArgs* launch, uint64_t copy_bytes,
                uint32_t stream) {
    file::ApiCall call;
    call.tid = tid(t);
    call.domain = domain;
    call.callback_id = cbid;
    call.name_id = name;
    call.stack_id = stack;
    if (launch != nullptr) {
      call.has_launch = true;
      call.launch = *launch;
    }
    if (copy_bytes != 0) {
      call.has_transfer = true;
      call.transfer.bytes = copy_bytes;
      call.transfer.kind = file::CopyKind::host_to_device;
      call.transfer.stream = 0x55550000 + stream;
    }
    chunk_.add(call, {start, end}, corr);
    ++events_;
  }

  uint64_t gpu_start(uint32_t t, uint64_t enqueued) const {
    return std::max(enqueued + 2000, gpu_free_[t] + 500);
  }
  uint64_t advance(uint64_t ns) { return now_ += ns; }

  uint64_t intern_step_name(uint64_t step) {
    // ProfilerStep#N, each defined once, in the chunk that first uses it.
    const uint64_t id = kStepNameBase + step;
    chunk_.add_string(id, "ProfilerStep#" + std::to_string(step));
    return id;
  }

  static constexpr uint64_t kRuntimeLaunch = 1, kDriverLaunch = 2, kMemcpyAsync = 3, kDriverMemcpy = 4,
                            kStreamSync = 5, kForward = 6, kBackward = 7, kKernelBase = 16,
                            kStepNameBase = 1000;

  FILE* out_;
  uint64_t target_;
  uint64_t events_ = 0;
  uint64_t now_ = 5'000'000'000'000ull;
  uint32_t correlation_ = 0;
  uint64_t gpu_free_[kThreads] = {};
  Random random_;
  ChunkEncoder chunk_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUTPUT EVENTS\n", argv[0]);
    return 2;
  }
  const uint64_t events = strtoull(argv[2], nullptr, 10);
  FILE* out = fopen(argv[1], "wb");
  if (out == nullptr) {
    perror(argv[1]);
    return 1;
  }
  static char buffer[1 << 20];
  setvbuf(out, buffer, _IOFBF, sizeof(buffer));
  Generator generator(out, events);
  generator.run();
  if (fclose(out) != 0) {
    perror(argv[1]);
    return 1;
  }
  printf("%" PRIu64 "\n", generator.events());
  return 0;
}
