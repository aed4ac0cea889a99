#pragma once
// The few facts advise reads from the model's recorded fields (io/records.h
// types), in one place, so that a change of the model's types touches this
// file only.
#include <cstdint>

#include "model/run.h"

namespace prof::analyzer {

inline bool is_host_to_device(const Run& run, const GpuActivity& g) {
  return run.transfer(g).copy_kind == CopyKind::kHostToDevice;
}
inline bool is_device_to_host(const Run& run, const GpuActivity& g) {
  return run.transfer(g).copy_kind == CopyKind::kDeviceToHost;
}
inline bool is_native(const Frame& f) { return f.kind == FrameKind::kNative; }

inline uint32_t process_pid(const ProcessInfo& p) { return p.process ? p.process->pid : 0; }
// -1: no rank variable was seen.
inline int32_t process_rank(const ProcessInfo& p) {
  return p.process && p.process->rank >= 0 ? p.process->rank : -1;
}
// The device's memory as recorded; 0: not recorded.
inline uint64_t device_memory_bytes(const ProcessInfo& p, uint32_t device) {
  for (const auto& d : p.devices)
    if (d.id == device) return d.global_memory_bytes;
  return 0;
}

}  // namespace prof::analyzer
