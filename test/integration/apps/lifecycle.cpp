// One program, several ways to end, for the agent's lifecycle tests.
//   lifecycle forever              NVTX ranges until killed
//   lifecycle sigterm-default      ranges, then waits for SIGTERM (default action)
//   lifecycle sigterm-handler      installs its own SIGTERM handler, waits, exits 7 from main
//   lifecycle exit-from-thread     a worker thread calls exit(5) inside an open range
//   lifecycle fork                 the child records ranges and _exits; the parent too
//   lifecycle fork-exec            the child execs "lifecycle child"
//   lifecycle fork-chain N         N forks down a chain, each right after its process's first range
//   lifecycle child                a few ranges, exit 0
// Every mode prints what it did to stdout, so that the tests can compare
// runs with and without the agent.
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::atomic<bool> g_terminated{false};

void ranges(const char* name, int count) {
  for (int i = 0; i < count; ++i) {
    nvtxRangePushA(name);
    nvtxRangePushA("inner");
    nvtxRangePop();
    nvtxRangePop();
  }
}

void ready() {
  // The test waits for this line before it sends a signal.
  printf("ready\n");
  fflush(stdout);
}

int forever() {
  ready();
  for (;;) {
    ranges("tick", 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

int sigterm_default() {
  ranges("before signal", 10);
  nvtxRangePushA("open when killed");
  ready();
  for (;;) pause();
}

void on_term(int) { g_terminated.store(true); }

int sigterm_handler() {
  struct sigaction action = {};
  action.sa_handler = on_term;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  // The app must see its own handler back, not the agent's.
  struct sigaction current = {};
  sigaction(SIGTERM, nullptr, &current);
  printf("handler installed: %s\n", current.sa_handler == on_term ? "yes" : "no");
  ranges("before signal", 10);
  ready();
  while (!g_terminated.load()) usleep(1000);
  ranges("after signal", 5);
  printf("handled SIGTERM\n");
  return 7;
}

int exit_from_thread() {
  nvtxRangePushA("main waiting");
  std::thread worker([] {
    ranges("worker", 20);
    nvtxRangePushA("open at exit");
    printf("worker exits the process\n");
    fflush(stdout);
    exit(5);
  });
  worker.join();
  return 0;  // never reached
}

int fork_child(bool exec_child, const char* self) {
  ranges("parent before fork", 10);
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    if (exec_child) {
      execl(self, self, "child", static_cast<char*>(nullptr));
      _exit(127);
    }
    ranges("forked child", 10);
    printf("forked child done\n");
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ranges("parent after fork", 10);
  printf("child pid %s, status %d\n", pid > 0 ? "ok" : "bad", WEXITSTATUS(status));
  return 0;
}

// Each process of the chain records a range, which starts its writer
// thread, and forks at once: the fork lands while that thread is starting.
// Each waits for its child and exits with its status.
int fork_chain(int depth) {
  for (int level = 0; level < depth; ++level) {
    ranges("chain", 1);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) continue;  // the child goes on down the chain
    int status = 0;
    const int code = waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (level > 0) _exit(code);
    printf("fork chain of %d done, status %d\n", depth, code);
    return code;
  }
  _exit(0);  // the chain's last child
}

int child() {
  ranges("exec child", 10);
  printf("exec child done\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "forever") == 0) return forever();
  if (strcmp(mode, "sigterm-default") == 0) return sigterm_default();
  if (strcmp(mode, "sigterm-handler") == 0) return sigterm_handler();
  if (strcmp(mode, "exit-from-thread") == 0) return exit_from_thread();
  if (strcmp(mode, "fork") == 0) return fork_child(false, argv[0]);
  if (strcmp(mode, "fork-exec") == 0) return fork_child(true, argv[0]);
  if (strcmp(mode, "fork-chain") == 0 && argc > 2) return fork_chain(atoi(argv[2]));
  if (strcmp(mode, "child") == 0) return child();
  fprintf(stderr, "usage: lifecycle MODE\n");
  return 2;
}
