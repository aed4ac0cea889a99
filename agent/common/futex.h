#pragma once
// Waiting on a 32-bit counter that another thread bumps, without a mutex:
// async-signal-safe (a signal handler waits for the writer so), and with no
// glibc function newer than 2.17 (a condition variable's timed wait is
// pthread_cond_clockwait, 2.34: install_agent_needs_glibc_2_17_*).
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <ctime>

namespace prof {

// Sleeps while `word` still holds `seen`, at most `timeout_ns` (UINT64_MAX:
// no limit); returns early on a wake, a change or a signal.
inline void futex_wait(const std::atomic<uint32_t>& word, uint32_t seen, uint64_t timeout_ns) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  syscall(SYS_futex, const_cast<uint32_t*>(reinterpret_cast<const uint32_t*>(&word)), FUTEX_WAIT_PRIVATE, seen,
          timeout_ns == UINT64_MAX ? nullptr : &timeout, nullptr, 0);
}

// Wakes every thread in futex_wait on `word`.
inline void futex_wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

}  // namespace prof
