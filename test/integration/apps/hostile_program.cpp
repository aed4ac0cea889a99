// A program that does to the agent what programs do (issue 27): closes,
// dup2()s over and recycles file descriptors, crashes early, calls exit()
// from several threads at once, execs itself. NVTX ranges are its records.
// Usage: hostile_program MODE [ARGS...]
//   fds close_reopen|dup2|closefrom  -- ranges, then the fd mischief, then ranges
//   crash SEGV|BUS|FPE|ILL|ABRT MS    -- ranges for MS milliseconds, then the crash
//   exit_threads N MS                 -- N threads record for MS ms, then all exit(3)
//   exec_self N                       -- ranges, then exec itself with N-1 (0: exit)
//   dlsym_probe                       -- which CUDA names dlsym(RTLD_DEFAULT) finds
//   dlopen_runtime PATH               -- cudaMalloc through dlopen(PATH, RTLD_LOCAL)
//   withdrawn_handler N               -- N ranges, a SIGINT to a thread of its own, then
//                                        SIGINT back to its default and a second one
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

void ranges(const char* name, int count) {
  for (int i = 0; i < count; ++i) {
    nvtxRangePushA(name);
    nvtxRangePop();
  }
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

void write_text(int fd, const std::string& text) {
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    perror("write");
    exit(2);
  }
}

std::vector<int> open_descriptors() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = atoi(entry->d_name);
    if (fd > 2 && fd != own) fds.push_back(fd);
  }
  closedir(dir);
  return fds;
}

// Closes every descriptor above 2, as closefrom(3) does.
void close_all_above_stderr() {
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
    for (int fd : open_descriptors()) close(fd);
  }
}

std::string log_line(const char* log, int i) { return std::string(log) + " line " + std::to_string(i) + "\n"; }

int fds(const char* how) {
  ranges("before", 100);
  sleep_ms(300);  // the agent has created its file and written to it
  int app1 = -1, app2 = -1;
  if (strcmp(how, "close_reopen") == 0) {
    // Close everything, open two logs: they take the lowest numbers, which
    // may be the agent's.
    close_all_above_stderr();
    app1 = open("app1.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    app2 = open("app2.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  } else if (strcmp(how, "dup2") == 0) {
    // One log over every descriptor the process has open: the agent's too.
    app1 = open("app1.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int fd : open_descriptors()) {
      if (fd != app1) dup2(app1, fd);
    }
    app2 = open("app2.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int fd = 3; fd < 64; ++fd) {
      if (fd != app1 && fd != app2) dup2(app2, fd);
    }
  } else if (strcmp(how, "closefrom") == 0) {
    close_all_above_stderr();
  } else {
    fprintf(stderr, "unknown fds mode %s\n", how);
    return 2;
  }
  for (int i = 0; i < 20; ++i) {
    ranges("after", 10);
    if (app1 >= 0) write_text(app1, log_line("app1", i));
    if (app2 >= 0) write_text(app2, log_line("app2", i));
    sleep_ms(20);  // several of the agent's flushes land in here
  }
  printf("fds %s done\n", how);
  return 0;
}

[[noreturn]] void crash_now(const char* how) {
  if (strcmp(how, "SEGV") == 0) {
    // Not null: UBSan would report a null store instead of letting it fault.
    volatile uintptr_t unmapped = 16;
    *reinterpret_cast<volatile int*>(unmapped) = 1;
  } else if (strcmp(how, "BUS") == 0) {
    // A mapping past the end of an empty file: a real bus error.
    FILE* file = tmpfile();
    auto* page = static_cast<volatile char*>(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fileno(file), 0));
    if (page != MAP_FAILED) (void)page[0];
  } else if (strcmp(how, "FPE") == 0) {
    // A division instruction (GCC turns 1 / x into compares, which never trap).
#if defined(__x86_64__)
    asm volatile("xor %%ecx, %%ecx\n\tmov $1, %%eax\n\tcltd\n\tidiv %%ecx" ::: "eax", "ecx", "edx");
#else
    raise(SIGFPE);
#endif
  } else if (strcmp(how, "ILL") == 0) {
    __builtin_trap();
  } else if (strcmp(how, "ABRT") == 0) {
    abort();
  }
  fprintf(stderr, "crash %s did not crash\n", how);
  exit(2);
}

int crash(const char* how, int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  int count = 0;
  while (std::chrono::steady_clock::now() < end) {
    ranges("before crash", 10);
    count += 10;
    sleep_ms(1);
  }
  printf("%d ranges\n", count);
  fflush(stdout);
  crash_now(how);
}

int exit_threads(int threads, int ms) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      while (std::chrono::steady_clock::now() < end) {
        ranges("worker", 20);
        sleep_ms(1);  // a few thousand ranges, not millions: the test reads them all
      }
      ranges("last", 1);
      ready.fetch_add(1);
      while (!go.load()) {
      }
      exit(3);
    });
  }
  while (ready.load() < threads) sleep_ms(1);
  go.store(true);
  for (auto& worker : workers) worker.join();
  return 0;
}

int exec_self(const char* self, int left) {
  char name[32];
  snprintf(name, sizeof name, "image %d", left);
  ranges(name, 50);
  if (left == 0) return 0;
  const std::string next = std::to_string(left - 1);
  execl("/proc/self/exe", self, "exec_self", next.c_str(), static_cast<char*>(nullptr));
  perror("execl");
  return 2;
}

int dlsym_probe() {
  // The runtime must be loaded for its names to be found at all.
  if (dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  for (const char* name : {"cudaMalloc", "cudaLaunchCooperativeKernel", "cuMemAlloc_v2", "cuMemcpy3D_v2"}) {
    printf("%s %s\n", name, dlsym(RTLD_DEFAULT, name) != nullptr ? "found" : "absent");
  }
  return 0;
}

int dlopen_runtime(const char* path) {
  void* runtime = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (runtime == nullptr) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  using Malloc = int (*)(void**, size_t);
  using Free = int (*)(void*);
  auto cuda_malloc = reinterpret_cast<Malloc>(dlsym(runtime, "cudaMalloc"));
  auto cuda_free = reinterpret_cast<Free>(dlsym(runtime, "cudaFree"));
  if (cuda_malloc == nullptr || cuda_free == nullptr) return 2;
  void* memory = nullptr;
  const int malloc_result = cuda_malloc(&memory, 1 << 20);
  const int free_result = memory != nullptr ? cuda_free(memory) : -1;
  printf("cudaMalloc %d cudaFree %d\n", malloc_result, free_result);
  return malloc_result == 0 && free_result == 0 ? 0 : 1;
}

// As CPython ends after a KeyboardInterrupt while `timeout` sends SIGINT
// to it and to its process group: a first SIGINT reaches another thread
// (the main thread blocks it), whose handler the agent runs after writing
// what the rings hold (a backlog of `backlog` ranges makes that take a
// while); meanwhile the main thread withdraws its handler, tears down what
// it used, sets SIGINT to its default and dies of a second one. The
// withdrawn handler must not run after that: it reports and exits 99.
std::atomic<bool> g_torn_down{false};

void withdrawn_handler(int) {
  if (!g_torn_down.load()) return;
  const char said[] = "withdrawn handler ran\n";
  if (write(STDERR_FILENO, said, sizeof said - 1) < 0) _exit(98);
  _exit(99);
}

int withdrawn_handler_runs(int backlog) {
  signal(SIGINT, withdrawn_handler);
  // Made before the main thread blocks SIGINT, so that it takes the first.
  std::thread receiver([] {
    for (;;) pause();
  });
  receiver.detach();
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  pthread_sigmask(SIG_BLOCK, &interrupt, nullptr);
  ranges("backlog", backlog);
  kill(getpid(), SIGINT);
  sleep_ms(2);  // the receiver is in the agent's handler, waiting for the writer
  signal(SIGINT, SIG_DFL);
  g_torn_down.store(true);
  pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
  kill(getpid(), SIGINT);
  sleep_ms(5000);
  fprintf(stderr, "still alive after the second SIGINT\n");
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fds" && argc == 3) return fds(argv[2]);
  if (mode == "crash" && argc == 4) return crash(argv[2], atoi(argv[3]));
  if (mode == "exit_threads" && argc == 4) return exit_threads(atoi(argv[2]), atoi(argv[3]));
  if (mode == "exec_self" && argc == 3) return exec_self(argv[0], atoi(argv[2]));
  if (mode == "dlsym_probe") return dlsym_probe();
  if (mode == "dlopen_runtime" && argc == 3) return dlopen_runtime(argv[2]);
  if (mode == "withdrawn_handler" && argc == 3) return withdrawn_handler_runs(atoi(argv[2]));
  fprintf(stderr, "usage: %s MODE [ARGS...] (see the source)\n", argv[0]);
  return 2;
}
