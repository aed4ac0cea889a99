#include "process_exit.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cerrno>

#include "agent_state.h"
#include "common/clock.h"
#include "common/glibc_function.h"

namespace prof {
namespace {

// The longest a second exit() waits for the first to write the file: the
// writer's final flush waits 10 s at most.
constexpr uint32_t kSecondExitWaitMs = 12'000;

enum class FinishState : int { none, running, done };
constinit std::atomic<FinishState> g_finish{FinishState::none};
// The process and thread that called exit() first (0: none yet), in one
// word, so that a forked child's first exit() takes it over in the same
// compare-exchange that tells a second caller it is second. (Two words, a
// pid exchanged then the thread reset, let two threads of one process both
// find themselves first: a double free in glibc's exit handlers, ASan,
// hostile_exit_from_threads_at_once_8.)
constinit std::atomic<uint64_t> g_first_exit{0};

uint64_t exit_caller(pid_t pid, pid_t tid) {
  return uint64_t{static_cast<uint32_t>(pid)} << 32 | static_cast<uint32_t>(tid);
}

// Whether this thread is the process's first to call exit() (or calls it
// again): else another thread's exit() runs the handlers.
bool first_to_exit(pid_t pid, pid_t tid) {
  const uint64_t mine = exit_caller(pid, tid);
  uint64_t seen = g_first_exit.load(std::memory_order_acquire);
  for (;;) {
    if (seen == mine) return true;
    if (seen >> 32 == static_cast<uint32_t>(pid)) return false;
    // No exit yet in this process (none at all, or only the parent's
    // before a fork): take it.
    if (g_first_exit.compare_exchange_weak(seen, mine, std::memory_order_acq_rel)) return true;
  }
}

// The agent's one clock, in ms: the waits below are bounded in ms.
uint64_t now_ms() { return monotonic_ns() / 1'000'000; }

}  // namespace

void note_finish_begins() { g_finish.store(FinishState::running, std::memory_order_release); }
void note_finish_done() { g_finish.store(FinishState::done, std::memory_order_release); }

void wait_for_finish(bool even_before_begun, uint32_t timeout_ms) {
  const uint64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    const FinishState state = g_finish.load(std::memory_order_acquire);
    if (state == FinishState::done) return;
    const AgentPhase phase = agent_state().phase.load(std::memory_order_acquire);
    // finished: the finishing thread took the phase and is about to say so.
    const bool finishing = state == FinishState::running || phase == AgentPhase::finished;
    // Only a process that records has a file to wait for.
    const bool about_to_finish = even_before_begun && phase == AgentPhase::recording;
    if (!finishing && !about_to_finish) return;
    if (getpid() != static_cast<pid_t>(agent_state().recording_pid.load())) return;  // a forked child
    if (now_ms() >= deadline) return;
    sleep_ms(1);
  }
}

void wait_for_the_first_exit(uint32_t timeout_ms) {
  const uint64_t deadline = now_ms() + timeout_ms;
  while (now_ms() < deadline) sleep_ms(1);  // the first exit() ends the process meanwhile
}

}  // namespace prof

// glibc's own _exit, without a dlsym: exit_group is all it does (and what
// it retries until the process is gone).
[[noreturn]] static void exit_now(int status) {
  for (;;) syscall(SYS_exit_group, status);
}

extern "C" [[gnu::visibility("default")]] [[noreturn]] void _exit(int status) {
  prof::finish_before_exit();
  exit_now(status);
}

extern "C" [[gnu::visibility("default")]] [[noreturn]] void _Exit(int status) {
  prof::finish_before_exit();
  exit_now(status);
}

extern "C" [[gnu::visibility("default")]] [[noreturn]] void exit(int status) {
  using ExitFunction = void (*)(int);
  static constinit std::atomic<ExitFunction> real{nullptr};
  const ExitFunction next = prof::next_libc_definition(real, "exit");
  const pid_t pid = getpid();
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (!prof::first_to_exit(pid, tid)) {
    // A second exit() while the first runs the atexit handlers: the process
    // must not end before the first has written the file. Nor may this
    // thread run the exit handlers beside the first: glibc before 2.41 lets
    // it (a double free of the handlers' list, seen under ASan once the
    // second caller waited here). As glibc 2.41 does, it waits for the
    // first exit() to end the process; bounded, so that a first exit whose
    // handlers wait for this thread still ends. (An atexit handler that
    // calls exit() again, on the first's thread, never waits: the agent's
    // own handler may be the one still to run.)
    prof::wait_for_finish(true, prof::kSecondExitWaitMs);
    prof::wait_for_the_first_exit(prof::kSecondExitWaitMs);
  }
  if (next != nullptr) next(status);
  exit_now(status);  // no libc exit found: end as _exit would
}

// ---- exec: every libc entry point, since glibc's exec functions call
// execve internally, past any interposition ----

namespace {

using ExecveFunction = int (*)(const char*, char* const[], char* const[]);
using ExecvFunction = int (*)(const char*, char* const[]);
using FexecveFunction = int (*)(int, char* const[], char* const[]);
constinit std::atomic<ExecveFunction> g_execve{nullptr};
constinit std::atomic<ExecveFunction> g_execvpe{nullptr};
constinit std::atomic<ExecvFunction> g_execv{nullptr};
constinit std::atomic<ExecvFunction> g_execvp{nullptr};
constinit std::atomic<FexecveFunction> g_fexecve{nullptr};

int no_function() {
  errno = ENOSYS;
  return -1;
}

// The variadic forms' arguments, up to the terminating null.
constexpr int kMaxListedArguments = 4096;

}  // namespace

extern "C" [[gnu::visibility("default")]] int execve(const char* path, char* const argv[], char* const envp[]) {
  prof::finish_before_exec();
  ExecveFunction real = prof::next_libc_definition(g_execve, "execve");
  return real != nullptr ? real(path, argv, envp) : no_function();
}

extern "C" [[gnu::visibility("default")]] int execvpe(const char* file, char* const argv[], char* const envp[]) {
  prof::finish_before_exec();
  ExecveFunction real = prof::next_libc_definition(g_execvpe, "execvpe");
  return real != nullptr ? real(file, argv, envp) : no_function();
}

extern "C" [[gnu::visibility("default")]] int execv(const char* path, char* const argv[]) {
  prof::finish_before_exec();
  ExecvFunction real = prof::next_libc_definition(g_execv, "execv");
  return real != nullptr ? real(path, argv) : no_function();
}

extern "C" [[gnu::visibility("default")]] int execvp(const char* file, char* const argv[]) {
  prof::finish_before_exec();
  ExecvFunction real = prof::next_libc_definition(g_execvp, "execvp");
  return real != nullptr ? real(file, argv) : no_function();
}

extern "C" [[gnu::visibility("default")]] int fexecve(int fd, char* const argv[], char* const envp[]) {
  prof::finish_before_exec();
  FexecveFunction real = prof::next_libc_definition(g_fexecve, "fexecve");
  return real != nullptr ? real(fd, argv, envp) : no_function();
}

namespace {

// Collects a variadic exec's arguments (and, for execle, the environment
// after them) without allocating: exec may follow vfork.
template <typename Then>
int with_listed_arguments(const char* first, va_list args, bool environment_follows, Then then) {
  char* argv[kMaxListedArguments + 1];
  int count = 0;
  argv[count++] = const_cast<char*>(first);
  if (first != nullptr) {
    while (count < kMaxListedArguments) {
      char* next = va_arg(args, char*);
      argv[count++] = next;
      if (next == nullptr) break;
    }
  }
  if (count == kMaxListedArguments && argv[count - 1] != nullptr) {
    errno = E2BIG;
    return -1;
  }
  char* const* envp = environment_follows ? va_arg(args, char* const*) : nullptr;
  return then(argv, envp);
}

}  // namespace

extern "C" [[gnu::visibility("default")]] int execl(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = with_listed_arguments(arg, args, false, [&](char* const* argv, char* const*) {
    return execv(path, argv);
  });
  va_end(args);
  return result;
}

extern "C" [[gnu::visibility("default")]] int execlp(const char* file, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = with_listed_arguments(arg, args, false, [&](char* const* argv, char* const*) {
    return execvp(file, argv);
  });
  va_end(args);
  return result;
}

extern "C" [[gnu::visibility("default")]] int execle(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = with_listed_arguments(arg, args, true, [&](char* const* argv, char* const* envp) {
    return execve(path, argv, envp);
  });
  va_end(args);
  return result;
}
