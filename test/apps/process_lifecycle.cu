// A CUDA process whose threads are still busy when it ends or forks: what
// threaded programs do (a server's workers, a data loader forking), and what a
// CUDA library's (and a profiler's) exit and fork handling must survive.
// Usage:
//   process_lifecycle exit_while_launching   main returns while 4 threads launch
//   process_lifecycle fork_busy [children=10] forks while 4 threads launch and copy;
//                                             each child calls exit(0) at once
// Prints one line; exit status 0 unless something failed (a child that crashed
// or exited non-zero makes the parent exit 1).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "app_common.h"

constexpr int kThreads = 4;

__global__ void busy_kernel(int* scratch) {
  if (threadIdx.x == 0) scratch[blockIdx.x] += 1;
}

// Launches (and copies) on its own stream until the process ends: never joined.
void launch_forever(int* scratch, std::atomic<long>* launched) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int host = 0;
  for (long i = 1;; ++i) {  // as many calls as the stream takes: a sync now and then only
    busy_kernel<<<1, 32, 0, stream>>>(scratch);
    CHECK_CUDA(cudaMemcpyAsync(&host, scratch, sizeof host, cudaMemcpyDeviceToHost, stream));
    if (i % 64 == 0) CHECK_CUDA(cudaStreamSynchronize(stream));
    launched->fetch_add(1);
  }
}

void start_busy_threads(int* scratch, std::atomic<long>* launched) {
  for (int t = 0; t < kThreads; ++t) std::thread(launch_forever, scratch, launched).detach();
  while (launched->load() < 256 * kThreads) std::this_thread::yield();
}

int exit_while_launching(int* scratch) {
  static std::atomic<long> launched{0};
  start_busy_threads(scratch, &launched);
  std::printf("process_lifecycle: main returns while %d threads launch\n", kThreads);
  std::fflush(stdout);
  return 0;  // static destructors run while the threads still call CUDA
}

int fork_busy(int* scratch, long children) {
  static std::atomic<long> launched{0};
  start_busy_threads(scratch, &launched);
  long failed = 0;
  for (long i = 0; i < children; ++i) {
    pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) std::exit(0);  // atexit handlers and static destructors run here
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child %d: %s %d\n", static_cast<int>(child),
                   WIFSIGNALED(status) ? "killed by signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      ++failed;
    }
  }
  std::printf("process_lifecycle: %ld children forked while %d threads launch, %ld failed\n", children, kThreads,
              failed);
  std::fflush(stdout);
  return failed == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: process_lifecycle exit_while_launching|fork_busy [children]\n");
    return 64;
  }
  int* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, 64 * sizeof(int)));
  if (std::strcmp(argv[1], "exit_while_launching") == 0) return exit_while_launching(scratch);
  if (std::strcmp(argv[1], "fork_busy") == 0) return fork_busy(scratch, arg_count(argc, argv, 2, 10));
  std::fprintf(stderr, "process_lifecycle: unknown mode %s\n", argv[1]);
  return 64;
}
