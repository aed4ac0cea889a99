#pragma once
// The GPU work launched inside the open capture window, by correlation id
// (the writer thread only). A window holds the work its calls launched, as
// torch's profiler holds a step's kernels: a kernel launched in the window's
// last step may start after the window ends, and CUPTI hands its record over
// only once it has run. The window's file is complete when every launch's
// record has arrived (WindowFiles::complete waits, with a bound).
// Without windows the writer keeps one for the whole process, for the same
// wait at exit (Writer::wait_for_gpu_work).
#include <cstdint>

#include "encode/file_records.h"
#include "record/correlation_set.h"
#include "record/records.h"

namespace prof {

// A call whose GPU record CUPTI will hand over: one that succeeded in
// putting work on the GPU (a copy or memset of no bytes puts none), seen
// through CUPTI's callbacks (a call the hooks recorded before CUPTI
// subscribed may have launched while its activity kinds were off). The
// caller leaves out launches into a stream capture (StreamCaptures).
inline bool cupti_will_report_work(const ApiCallRecord& call) {
  const bool work = call.args == ApiCallArgs::launch ||
                    ((call.args == ApiCallArgs::copy || call.args == ApiCallArgs::memset) && call.bytes != 0);
  return work && call.return_code == 0 && call.backend == static_cast<uint8_t>(file::CaptureBackend::cupti);
}

// Stream captures open, as the writer drains their begin and end calls: a
// launch made while one is open may be captured into a graph rather than
// run, and then no GPU record comes, so it is not waited for. By the order
// in which the writer drains the threads' rings: a launch another thread
// makes into a capture (a stream joined by an event) may be drained before
// the capture's begin, and then waited for in vain (the bound holds).
class StreamCaptures {
 public:
  void note(const ApiCallRecord& call) {
    if (call.args == ApiCallArgs::capture_begin && call.return_code == 0) ++open_;
    // An end that fails still ends the capture (cudaErrorStreamCaptureInvalidated).
    if (call.args == ApiCallArgs::capture_end && open_ != 0) --open_;
  }
  bool any_open() const { return open_ != 0; }

 private:
  uint32_t open_ = 0;
};

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
    if (early_.erase(correlation_id)) return;  // its record came first
    waiting_.insert(correlation_id);
  }

  enum class Origin {
    inside,   // a call recorded in this window launched it
    before,   // launched before the window opened
    unknown,  // its call is not known (yet): the record's time decides
  };
  // A GPU record: where the call that launched it was made. A launch's
  // record mostly finds its call waiting; the other cases are out of line
  // (inline, they made every record save and restore five registers,
  // callgrind).
  Origin arrived(uint32_t correlation_id) {
    if (!active_) return Origin::unknown;
    if (waiting_.erase(correlation_id)) [[likely]] return Origin::inside;
    return arrived_unawaited(correlation_id);
  }

  // Whether a call recorded in this window awaits the record of `correlation_id`.
  bool awaits(uint32_t correlation_id) const { return active_ && waiting_.contains(correlation_id); }
  // Launches whose GPU record has not arrived yet.
  size_t outstanding() const { return waiting_.size(); }

 private:
  static constexpr size_t kMaxEarly = 4096;
  // A GPU record whose call is not waiting.
  [[gnu::noinline]] Origin arrived_unawaited(uint32_t correlation_id) {
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
  void clear() {
    waiting_.clear();
    early_.clear();
    first_ = UINT32_MAX;
  }
  bool active_ = false;
  uint32_t first_ = UINT32_MAX;  // the lowest correlation id launched()
  CorrelationSet waiting_;
  CorrelationSet early_;
};

}  // namespace prof
