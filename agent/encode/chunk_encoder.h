#pragma once
// Encodes one Chunk of proto/prof.proto at a time, and the file preamble.
//
// Each repeated field of the chunk accumulates in its own buffer, because
// start times are delta-encoded per list (FORMAT.md, "Time"); finish()
// concatenates them in field-number order behind the chunk's length.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "encode/byte_buffer.h"
#include "encode/file_records.h"

namespace prof {

inline constexpr char kFileMagic[8] = {'\x89', 'P', 'R', 'O', 'F', '\r', '\n', '\x1a'};
inline constexpr uint32_t kFormatMajor = 2;
inline constexpr uint32_t kFormatMinor = 0;

// The magic, then the length-delimited Header.
std::string encode_file_preamble(std::string_view producer);

class ChunkEncoder {
 public:
  ChunkEncoder() { begin(0); }

  // Starts a new chunk; deltas of its records are relative to time_base_ns.
  void begin(uint64_t time_base_ns);

  void add(const ApiCall& call);
  void add(const Kernel& kernel);
  void add(const Memcpy& copy);
  void add(const Memset& set);
  void add(const NvtxRange& range);
  void add(const MemoryEvent& event);
  void add(const Synchronization& sync);
  void add(const NvtxMark& mark);
  void add(const Overhead& overhead);

  void add_string(uint64_t id, std::string_view value);
  void add(const FrameInfo& frame);
  void add(const StackInfo& stack);
  void add(const ModuleInfo& module);
  void set(const ProcessInfo& process);
  void add(const ThreadInfo& thread);
  void add(const DeviceInfo& device);
  void add(const ContextInfo& context);
  void set(const DropCounts& drops);
  void set(const ProcessEnd& end);

  bool empty() const;
  size_t pending_bytes() const;

  // The chunk as it goes into the file: varint length, then the message.
  // Resets the encoder for the next chunk at the same time base. The bytes
  // stay valid until the next finish().
  const std::string& finish();

 private:
  // One buffer per repeated or singular field, indexed by field number.
  static constexpr size_t kFields = 26;
  struct List {
    ByteBuffer bytes;
    uint64_t previous_time_ns = 0;
  };

  ByteBuffer& list_bytes(uint32_t field) { return lists_[field].bytes; }
  // Delta of `time_ns` against the previous record of the list `field`.
  int64_t delta(uint32_t field, uint64_t time_ns);

  uint64_t time_base_ns_ = 0;
  std::array<List, kFields> lists_;
  // What the previous ApiCall of this chunk carried: a call repeats its
  // thread's tid only when it changes, and its correlation id as a delta.
  uint32_t previous_call_tid_ = 0;
  uint32_t previous_call_correlation_ = 0;
  std::string framed_;  // finish()'s result, its capacity reused
};

}  // namespace prof
