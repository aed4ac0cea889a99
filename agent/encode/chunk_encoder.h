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
// 1: ApiCall.backend, event_timed GPU records; 2: Chunk.window (a capture
// window's file) with Window.gpu_records_missing; 3: tensor memory events;
// 4: ProcessEnd.gpu_records_missing.
inline constexpr uint32_t kFormatMinor = 4;

// The magic, then the length-delimited Header.
std::string encode_file_preamble(std::string_view producer);

// When a record happened, in CLOCK_MONOTONIC ns. The encoder turns it into the
// schema's start_delta_ns and duration_ns.
struct Span {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// Launch dimensions go on the wire minus one (prof.proto, LaunchArgs), mod
// 2^32, so that a 0 (never valid, but possible in a call that fails) stays
// lossless. Inline: once per launch and per kernel on the writer.
template <typename Dims>  // file::LaunchArgs or file::Kernel
inline void set_dims(Dims& d, const uint32_t (&grid)[3], const uint32_t (&block)[3]) {
  d.grid_x_minus_one = grid[0] - 1u;
  d.grid_y_minus_one = grid[1] - 1u;
  d.grid_z_minus_one = grid[2] - 1u;
  d.block_x_minus_one = block[0] - 1u;
  d.block_y_minus_one = block[1] - 1u;
  d.block_z_minus_one = block[2] - 1u;
}

// The records are the structs generated from prof.proto (encode/file_records.h,
// namespace prof::file), filled except for the fields of the format-2 compact
// encodings (FORMAT.md), which the encoder computes: times as deltas within a
// list, an ApiCall's tid only when it changes and its correlation id as a delta.
// It writes them into the record it is given (no copy on the writer's hot
// path), so a record is not reused after add().
class ChunkEncoder {
 public:
  ChunkEncoder() { begin(0); }

  // Starts a new chunk; deltas of its records are relative to time_base_ns.
  void begin(uint64_t time_base_ns);

  // `call.tid` is the calling thread's tid.
  void add(file::ApiCall& call, Span span, uint32_t correlation_id);
  void add(file::Kernel& kernel, Span span);
  void add(file::Memcpy& copy, Span span);
  void add(file::Memset& set, Span span);
  void add(file::NvtxRange& range, Span span);
  void add(file::MemoryEvent& event, uint64_t time_ns);
  void add(file::TensorMemoryEvent& event, uint64_t time_ns);
  void add(file::Synchronization& sync, Span span);
  void add(file::NvtxMark& mark, uint64_t time_ns);
  void add(file::Overhead& overhead, Span span);

  void add_string(uint64_t id, std::string_view value);
  void add(const file::Frame& frame);
  void add(const file::Stack& stack);
  void add(const file::Module& module);
  void set(const file::Process& process);
  void add(const file::Thread& thread);
  void add(const file::Device& device);
  void add(const file::Context& context);
  void set(const file::DropCounts& drops);
  void set(const file::ProcessEnd& end);
  void set(const file::Window& window);

  bool empty() const;
  size_t pending_bytes() const;

  // The chunk as it goes into the file: varint length, then the message.
  // Resets the encoder for the next chunk at the same time base. The bytes
  // stay valid until the next finish().
  const std::string& finish();

 private:
  using ChunkField = file::Chunk::Fields;
  // One buffer per repeated or singular field, indexed by field number.
  static constexpr size_t kFields = ChunkField::window + 1;
  struct List {
    ByteBuffer bytes;
    uint64_t previous_time_ns = 0;
  };

  ByteBuffer& list_bytes(uint32_t field) { return lists_[field].bytes; }
  // Delta of `time_ns` against the previous record of the list `field`.
  int64_t delta(uint32_t field, uint64_t time_ns);
  // Appends one element of the repeated field `field`.
  template <typename Message>
  void append(uint32_t field, const Message& message);
  // Replaces the singular field `field`.
  template <typename Message>
  void replace(uint32_t field, const Message& message);

  uint64_t time_base_ns_ = 0;
  std::array<List, kFields> lists_;
  // What the previous ApiCall of this chunk carried: a call repeats its
  // thread's tid only when it changes, and its correlation id as a delta.
  uint32_t previous_call_tid_ = 0;
  uint32_t previous_call_correlation_ = 0;
  std::string framed_;  // finish()'s result, its capacity reused
};

}  // namespace prof
