#include "device_executor.h"

#include <pthread.h>

#include <condition_variable>
#include <limits>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "sim_clock.h"

namespace simcuda {
namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

struct Task {
  uint64_t due_ns;
  uint64_t sequence;  // keeps tasks due together in submission order
  std::function<void()> run;
  bool operator>(const Task& other) const {
    return due_ns != other.due_ns ? due_ns > other.due_ns : sequence > other.sequence;
  }
};

class Executor {
 public:
  void submit(uint64_t due_ns, std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) {
      started_ = true;
      // Detached and never joined: the process may exit with work still queued,
      // as a GPU's pending work is dropped at exit.
      std::thread([this] { run(); }).detach();
    }
    queue_.push({due_ns, next_sequence_++, std::move(task)});
    changed_.notify_all();
  }

  bool done_through(uint64_t deadline_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_through_locked(deadline_ns);
  }

  void wait_through(uint64_t deadline_ns) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return done_through_locked(deadline_ns); });
  }

 private:
  bool done_through_locked(uint64_t deadline_ns) const {
    return (queue_.empty() || queue_.top().due_ns > deadline_ns) && running_due_ns_ > deadline_ns;
  }

  void run() {
    pthread_setname_np(pthread_self(), "simcuda-device");
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (queue_.empty()) {
        changed_.wait(lock);
        continue;
      }
      uint64_t now = now_ns();
      if (queue_.top().due_ns > now) {
        changed_.wait_for(lock, std::chrono::nanoseconds(queue_.top().due_ns - now));
        continue;
      }
      Task task = queue_.top();
      queue_.pop();
      running_due_ns_ = task.due_ns;
      lock.unlock();
      task.run();
      lock.lock();
      running_due_ns_ = kNone;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::priority_queue<Task, std::vector<Task>, std::greater<Task>> queue_;
  uint64_t next_sequence_ = 0;
  uint64_t running_due_ns_ = kNone;
  bool started_ = false;
};

Executor* g_executor = nullptr;

Executor& executor() {
  // Leaked on purpose (other libraries' destructors may still sync); a forked
  // child, which has no device thread, starts afresh with its own.
  static bool once = [] {
    pthread_atfork(nullptr, nullptr, [] { g_executor = new Executor; });
    return true;
  }();
  (void)once;
  static std::once_flag created;
  std::call_once(created, [] { g_executor = new Executor; });
  return *g_executor;
}

}  // namespace

void run_at(uint64_t due_ns, std::function<void()> task) { executor().submit(due_ns, std::move(task)); }

bool tasks_done_through(uint64_t deadline_ns) { return executor().done_through(deadline_ns); }

void wait_for_tasks_through(uint64_t deadline_ns) { executor().wait_through(deadline_ns); }

}  // namespace simcuda
