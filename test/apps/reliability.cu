// The agent's limits and process lifecycles, one mode per run (issue 16).
//   reliability fork N [exit|_exit]   N forked children each start CUDA, launch
//                                     kernels and end with exit() or _exit(); then the
//                                     parent does the same (CUDA does not survive a
//                                     fork: a child must not inherit a started CUDA)
//   reliability segfault              launches, waits for a flush, then dereferences null
//   reliability thread_churn N        N short-lived threads, one after another in
//                                     batches of 16, each launching one kernel; its
//                                     peak resident memory on stderr
//   reliability threads_alive N       N threads alive at once, each launching kernels
//   reliability long_name             one launch of a kernel whose name has > 10,000 characters
//   reliability nvtx_strings N        N distinct NVTX range names, every other one
//                                     with a range "inner" inside
//   reliability first_interval N      N new threads, each timing two empty NVTX ranges
//   reliability plain                 a few launches and copies (output-unchanged checks)
// Prints what it did, so that runs with and without the agent compare.
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app_common.h"

__global__ void reliability_kernel(int* data, int value) {
  if (threadIdx.x == 0) data[0] += value;
}

// A kernel whose demangled name is over 10,000 characters: 2,000 template
// arguments.
template <int... Values>
__global__ void long_named_kernel(int* data) {
  if (threadIdx.x == 0) data[0] += static_cast<int>(sizeof...(Values));
}

template <int... Values>
void launch_long_named(int* data, std::integer_sequence<int, Values...>) {
  long_named_kernel<(Values + 10000)...><<<1, 32>>>(data);
}

namespace {

int* g_data = nullptr;

void launches(int count, int value) {
  for (int i = 0; i < count; ++i) reliability_kernel<<<1, 32>>>(g_data, value);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
}

void start_cuda() {
  CHECK_CUDA(cudaMalloc(&g_data, sizeof(int)));
  CHECK_CUDA(cudaMemset(g_data, 0, sizeof(int)));
}

int fork_children(long children, bool underscore_exit) {
  std::vector<pid_t> pids;
  for (long c = 0; c < children; ++c) {
    const pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      start_cuda();
      launches(5, 2);
      std::fflush(stdout);
      if (underscore_exit) _exit(0);
      std::exit(0);
    }
    pids.push_back(pid);
  }
  start_cuda();
  launches(10, 1);
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::printf("fork: %ld children, %d failed\n", children, failed);
  return failed == 0 ? 0 : 4;
}

int segfault() {
  launches(20, 1);
  std::printf("segfault: launched 20\n");
  std::fflush(stdout);
  // Longer than the agent's default flush interval (500 ms): the launches are on disk.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  volatile int* null_pointer = nullptr;
  return *null_pointer;
}

// The process's own peak resident memory (VmHWM), for the memory checks: a
// parent's rusage ru_maxrss of its child also counts the memory the child
// had before exec, i.e. the size of the Python test that started it.
long peak_rss_kb() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  }
  std::fclose(status);
  return kb;
}

int thread_churn(long count) {
  long launched = 0;
  for (long done = 0; done < count;) {
    std::vector<std::thread> batch;
    for (int t = 0; t < 16 && done < count; ++t, ++done) {
      batch.emplace_back([] { reliability_kernel<<<1, 32>>>(g_data, 1); });
    }
    for (std::thread& thread : batch) thread.join();
    launched += static_cast<long>(batch.size());
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("thread_churn: %ld threads, one launch each\n", launched);
  std::fprintf(stderr, "thread_churn: peak RSS %ld KiB\n", peak_rss_kb());
  return 0;
}

int threads_alive(long count) {
  std::atomic<long> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (long t = 0; t < count; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 4; ++i) reliability_kernel<<<1, 32>>>(g_data, 1);
      // Still alive while every other thread launches.
      ready.fetch_sub(1);
      while (ready.load() > 0) std::this_thread::yield();
    });
  }
  while (ready.load() < count) std::this_thread::yield();
  go.store(true);
  for (std::thread& thread : threads) thread.join();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("threads_alive: %ld threads, 4 launches each\n", count);
  return 0;
}

int long_name() {
  launch_long_named(g_data, std::make_integer_sequence<int, 2000>{});
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("long_name: 1 launch\n");
  return 0;
}

int nvtx_strings(long count) {
  char name[32];
  for (long i = 0; i < count; ++i) {
    std::snprintf(name, sizeof(name), "range %ld", i);
    nvtxRangePushA(name);
    if (i % 2 == 0) {  // nested, so that a lost push or pop would show as a wrong pairing
      nvtxRangePushA("inner");
      nvtxRangePop();
    }
    nvtxRangePop();
  }
  std::printf("nvtx_strings: %ld\n", count);
  return 0;
}

int first_interval(long count) {
  for (long t = 0; t < count; ++t) {
    std::thread([] {
      nvtxRangePushA("first");
      nvtxRangePop();
      nvtxRangePushA("second");
      nvtxRangePop();
    }).join();
  }
  std::printf("first_interval: %ld threads\n", count);
  return 0;
}

int plain() {
  launches(10, 1);
  int host = 0;
  CHECK_CUDA(cudaMemcpy(&host, g_data, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("plain: value %d\n", host);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  const long count = arg_count(argc, argv, 2, 16);
  if (std::strcmp(mode, "fork") != 0) start_cuda();
  int result = 2;
  if (std::strcmp(mode, "fork") == 0) {
    result = fork_children(count, argc > 3 && std::strcmp(argv[3], "_exit") == 0);
  } else if (std::strcmp(mode, "segfault") == 0) {
    result = segfault();
  } else if (std::strcmp(mode, "thread_churn") == 0) {
    result = thread_churn(count);
  } else if (std::strcmp(mode, "threads_alive") == 0) {
    result = threads_alive(count);
  } else if (std::strcmp(mode, "long_name") == 0) {
    result = long_name();
  } else if (std::strcmp(mode, "nvtx_strings") == 0) {
    result = nvtx_strings(count);
  } else if (std::strcmp(mode, "first_interval") == 0) {
    result = first_interval(count);
  } else if (std::strcmp(mode, "plain") == 0) {
    result = plain();
  } else {
    std::fprintf(stderr, "reliability: unknown mode %s\n", mode);
  }
  std::fflush(stdout);
  return result;
}
