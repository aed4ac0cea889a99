#include "record/recorder.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

namespace prof {
namespace {

// Not in AgentState: a pthread key and its once flag, whose destructor
// runs at thread exit; the recorder runs in unit tests without an agent.
pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

}  // namespace

// Runs as the thread exits (pthread key destructor). A thread_local with a
// destructor would work too, but this keeps the hot-path TLS trivial.
void on_thread_exit(void* buffer) {
  Recorder::t_buffer_ = nullptr;
  static_cast<ThreadBuffer*>(buffer)->release_native_walk_memo();
  static_cast<ThreadBuffer*>(buffer)->mark_owner_exited();
  ThreadBuffer::wake_consumer();
}

void Recorder::forget_this_thread() {
  t_buffer_ = nullptr;
  // The parent's key, if it was created: no exit hook on a buffer we dropped.
  pthread_once(&g_exit_key_once, [] { pthread_key_create(&g_exit_key, on_thread_exit); });
  pthread_setspecific(g_exit_key, nullptr);
}

ThreadBuffer* Recorder::register_thread() {
  pthread_once(&g_exit_key_once, [] { pthread_key_create(&g_exit_key, on_thread_exit); });
  auto* buffer = new (std::nothrow)
      ThreadBuffer(buffer_bytes_, static_cast<uint32_t>(syscall(SYS_gettid)));
  if (buffer == nullptr) return nullptr;
  char name[16] = {};
  if (prctl(PR_GET_NAME, name) == 0) buffer->set_name_at_start(name);
  {
    std::lock_guard lock(mutex_);
    buffers_.push_back(buffer);
  }
  pthread_setspecific(g_exit_key, buffer);
  t_buffer_ = buffer;
  // The process's first record is on its way: the writer claims the
  // output file now (run_claim.h), not at its first write, so that of two
  // processes of a run the one that recorded first gets PROF_OUTPUT.
  if (!recording_started_.exchange(true, std::memory_order_acq_rel)) {
    if (first_record_hook_ != nullptr) first_record_hook_();
    ThreadBuffer::wake_consumer();
  }
  return buffer;
}

Recorder::Positions Recorder::positions() const {
  std::lock_guard lock(mutex_);
  Positions out;
  out.reserve(buffers_.size());
  for (const ThreadBuffer* buffer : buffers_) out.emplace_back(buffer, buffer->write_position());
  return out;
}

uint64_t Recorder::dropped() const {
  std::lock_guard lock(mutex_);
  uint64_t total = retired_dropped_;
  for (const ThreadBuffer* buffer : buffers_) total += buffer->dropped();
  return total;
}

ThreadBuffer::WaitStats Recorder::wait_stats() const {
  std::lock_guard lock(mutex_);
  ThreadBuffer::WaitStats total = retired_waits_;
  for (const ThreadBuffer* buffer : buffers_) total.add(buffer->wait_stats());
  return total;
}

}  // namespace prof
