#include "control/step_names.h"

#include <mutex>
#include <unordered_map>

namespace prof {
namespace {

// Names remembered at most: a run whose range names carry a counter
// ("step#1234") brings a new name per step, so the table is bounded (about
// 3 MiB full); past it, a name not remembered is matched again when seen
// again (still in linear time; only the once-per-name promise lapses).
constexpr size_t kMaxRememberedNames = 1 << 16;

class Answers {
 public:
  template <typename Match>
  bool answer(uint64_t key, Match&& match) {
    // try_lock, never lock: a child forked while another thread of the
    // parent held the mutex would wait forever; and a second thread asking
    // at the same moment loses only the memo, never the answer.
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      if (auto it = by_key_.find(key); it != by_key_.end()) return it->second;
    }
    const bool matches = match();
    if (lock.owns_lock() && by_key_.size() < kMaxRememberedNames) by_key_.emplace(key, matches);
    return matches;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<uint64_t, bool> by_key_;
};

// One table for ranges and kernels: a process has one rule, of one kind.
// Leaked, not destroyed at exit: CUDA calls of other threads may still ask.
Answers& answers() {
  static Answers* table = new Answers();
  return *table;
}

}  // namespace

uint64_t step_name_key(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  for (const char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return hash | (uint64_t{1} << 63);
}

bool rule_takes_range(const StepRule& rule, std::string_view name, uint64_t key) {
  return answers().answer(key, [&] { return rule.matches(name); });
}

bool rule_takes_kernel(const StepRule& rule, std::string_view symbol, uint64_t key) {
  return answers().answer(key, [&] { return rule.matches(demangled_kernel_name(symbol)); });
}

}  // namespace prof
