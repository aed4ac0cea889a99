#pragma once
// The GPU work launched inside the open capture window, by correlation id
// (the writer thread only). A window holds the work its calls launched, as
// torch's profiler holds a step's kernels: a kernel launched in the window's
// last step may start after the window ends, and CUPTI hands its record over
// only once it has run. The window's file is complete when every launch's
// record has arrived (Writer::complete_window waits, with a bound).
#include <cstdint>
#include <unordered_set>

namespace prof {

class WindowLaunches {
 public:
  // Tracking starts with each window (CUPTI's records only: they carry the
  // launch's correlation id) and stops when its file is complete.
  void begin() {
    clear();
    active_ = true;
  }
  void end() {
    clear();
    active_ = false;
  }
  bool active() const { return active_; }

  // A call recorded in the window that put work on the GPU (a launch, copy
  // or memset that succeeded).
  void launched(uint32_t correlation_id) {
    if (!active_) return;
    if (correlation_id < first_) first_ = correlation_id;
    if (early_.erase(correlation_id) != 0) return;  // its record came first
    waiting_.insert(correlation_id);
  }

  enum class Origin {
    inside,   // a call recorded in this window launched it
    before,   // launched before the window opened
    unknown,  // its call is not known (yet): the record's time decides
  };
  // A GPU record: where the call that launched it was made.
  Origin arrived(uint32_t correlation_id) {
    if (!active_) return Origin::unknown;
    if (waiting_.erase(correlation_id) != 0) return Origin::inside;
    // CUPTI numbers calls as they begin: one numbered below the window's
    // first launch began before the window (a launch still in its call when
    // the window opened, whose kernel ran inside it).
    if (correlation_id < first_) return Origin::before;
    // The record came before its call was drained (the app thread was
    // preempted between the launch and its return). Bounded: graph kernels
    // (whose cudaGraphLaunch is not waited for) would otherwise pile up.
    if (early_.size() >= kMaxEarly) early_.clear();
    early_.insert(correlation_id);
    return Origin::unknown;
  }

  // Launches whose GPU record has not arrived yet.
  size_t outstanding() const { return waiting_.size(); }

 private:
  static constexpr size_t kMaxEarly = 4096;
  void clear() {
    waiting_.clear();
    early_.clear();
    first_ = UINT32_MAX;
  }
  bool active_ = false;
  uint32_t first_ = UINT32_MAX;  // the lowest correlation id launched()
  std::unordered_set<uint32_t> waiting_;
  std::unordered_set<uint32_t> early_;
};

}  // namespace prof
