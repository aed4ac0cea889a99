// libFuzzer target: `trace`'s GPU annotations and time arithmetic over any
// times a file can hold. A capture of random bytes seldom decodes into an
// NVTX range with GPU work launched inside it, the case where `trace` once
// spun forever (a copy inside a range that starts just below 0, issue 27);
// here the bytes are the times, directly: ranges, the calls inside them and
// the work those launched, on a few threads and streams, every value
// unconstrained (ends before starts, times near 0 and 2^64). The trace must
// be written, whatever they are; a hang (libFuzzer's -timeout), a crash or a
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "model/run.h"
#include "views/chrome_trace.h"

namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  // Times: small steps mostly (events that touch and nest), any 64-bit value
  // now and then.
  uint64_t time() {
    const uint8_t kind = byte();
    if (kind < 0xf0) return kind;
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value = value << 8 | byte();
    return value;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

class NullSink : public prof::analyzer::TraceSink {
 public:
  void write(std::string_view) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace prof::analyzer;
  Bytes in(data, size);
  Run run;
  run.processes.emplace_back();
  const NameId names[] = {run.intern("ProfilerStep#0"), run.intern("forward"), run.intern("cudaLaunchKernel"),
                          run.intern("kernel")};
  uint64_t clock = 0;
  while (!in.empty() && run.cpu_events.size() < 4096) {
    const uint8_t what = in.byte();
    clock += in.time();
    if (what % 3 < 2) {  // a range or a call on one of two threads
      CpuEvent e;
      e.start_ns = clock;
      e.end_ns = clock + in.time();
      e.tid = 1 + what / 128;
      const bool call = what % 3 == 1;
      e.kind = call ? CpuEventKind::kApiCall : CpuEventKind::kPushPopRange;
      e.name = call ? names[2] : names[what / 3 % 2];
      e.set_correlation_id(call ? static_cast<uint32_t>(run.cpu_events.size() + 1) : 0);
      run.cpu_events.push_back(e);
    } else if (!run.cpu_events.empty()) {  // work launched by one of the calls so far
      GpuActivity g;
      g.start_ns = clock;
      g.end_ns = clock + in.time();
      g.launched_by = static_cast<int64_t>(in.byte() % run.cpu_events.size());
      const CpuEvent& call = run.cpu_events[static_cast<size_t>(g.launched_by)];
      if (call.kind != CpuEventKind::kApiCall) g.launched_by = -1;
      g.correlation_id = call.correlation_id();
      g.place = run.gpu_places.intern({.stream_id = static_cast<uint32_t>(what / 64)});
      g.kind = static_cast<GpuKind>(what / 3 % 3);
      g.name = names[3];
      run.gpu_activities.push_back(g);
    }
  }
  NullSink sink;
  write_chrome_trace(run, ChromeTraceOptions{}, sink);
  return 0;
}
