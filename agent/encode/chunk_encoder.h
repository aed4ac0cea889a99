#pragma once
// Encodes one Chunk of proto/prof.proto at a time, and the file preamble.
//
// Each repeated field of the chunk accumulates in its own buffer, because
// start times are delta-encoded per list (FORMAT.md, "Time"); finish()
// concatenates them in field-number order behind the chunk's length.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "encode/byte_buffer.h"
#include "encode/file_records.h"
#include "encode/proto_wire.h"

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
  // The schema's duration_ns: 0 for an end before the start.
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
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

// An API call as the writer has it from the ring (record/translator.cpp):
// the same fields as file::ApiCall, with its times and correlation id as
// they were, not yet made deltas. ChunkEncoder writes it to the wire
// directly, without the generated struct between (cleared, filled, then
// read field by field: ~50 instructions of the writer's ~400 per call) and
// with one room check per call. The arguments of the kind `args` does not
// name are not read.
struct ApiCallFields {
  enum class Args : uint8_t { none, launch, transfer };
  uint32_t tid;  // the calling thread's
  uint32_t correlation_id;
  Span span;
  file::ApiDomain domain;
  file::CaptureBackend backend;
  Args args;
  uint32_t callback_id;
  int32_t return_code;
  uint64_t name_id;
  uint64_t stack_id;
  // Args::launch (LaunchArgs): dimensions as the call gave them.
  uint64_t kernel_name_id;
  const uint32_t* grid;   // [3]
  const uint32_t* block;  // [3]
  uint32_t dynamic_shared_bytes;
  // Args::launch and Args::transfer.
  uint64_t stream;
  // Args::transfer (TransferArgs).
  uint64_t bytes;
  file::CopyKind copy_kind;
  bool is_memset;
};

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
  // The same bytes as add(file::ApiCall&) of the same call (inline: the
  // writer's most frequent record, filled field by field by its caller).
  [[gnu::always_inline]] void add(const ApiCallFields& call) { add_call<false>(call); }
  // add(ApiCallFields), its bytes kept for add_call_repeat().
  [[gnu::always_inline]] void add_kept(const ApiCallFields& call) { add_call<true>(call); }
  // The same bytes as add(ApiCallFields) of a call whose fields are all
  // those of the last call given to add_kept() but for these four, which change
  // from call to call: its thread, times and correlation id. The rest are
  // copied as that call's bytes, two copies instead of a field each (a
  // loop's launches repeat one another; Translator::api_call knows when).
  void add_call_repeat(uint32_t tid, Span span, uint32_t correlation_id);
  [[gnu::always_inline]] void add(file::Kernel& kernel, Span span) { add_kernel<false>(kernel, span); }
  // add(file::Kernel&), its bytes kept for add_kernel_repeat().
  [[gnu::always_inline]] void add_kept(file::Kernel& kernel, Span span) { add_kernel<true>(kernel, span); }
  // The same bytes as add(file::Kernel&) of a kernel whose fields are all
  // those of the last kernel given to add_kept() but for its times and
  // correlation id: the rest copied as that kernel's bytes, three copies
  // instead of seventeen fields (CuptiDecoder::decode knows when).
  void add_kernel_repeat(uint32_t correlation_id, Span span);
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

  // The same bytes as finish()'s, as pieces for one gathered write: the
  // framing (the varint length and the time base), then each list's bytes
  // where they lie. finish() copies every list into one string, a second
  // pass over every byte the writer encodes (~45 of its instructions per
  // launch, callgrind, tiny_kernels). Does not reset the encoder: the
  // pieces stay valid until the next add(), set() or begin(), which the
  // caller makes once they are written.
  struct Pieces {
    static constexpr size_t kMax = file::Chunk::Fields::window + 2;  // the framing, then a list per field
    std::array<std::string_view, kMax> parts;
    size_t count = 0;
    size_t bytes = 0;  // of all the parts
  };
  const Pieces& finish_in_pieces();

 private:
  using ChunkField = file::Chunk::Fields;
  // One buffer per repeated or singular field, indexed by field number.
  static constexpr size_t kFields = ChunkField::window + 1;
  struct List {
    ByteBuffer bytes;
    uint64_t previous_time_ns = 0;
  };

  template <bool Kept>
  [[gnu::always_inline]] void add_call(const ApiCallFields& call);
  ByteBuffer& list_bytes(uint32_t field) { return lists_[field].bytes; }
  // Delta of `time_ns` against the previous record of the list `field`.
  // Inline: the kernels' add() is, once per kernel.
  int64_t delta(uint32_t field, uint64_t time_ns) {
    List& list = lists_[field];
    const int64_t d = static_cast<int64_t>(time_ns - list.previous_time_ns);
    list.previous_time_ns = time_ns;
    return d;
  }
  // An API call's compact fields (FORMAT.md), for both of its add()s: its
  // thread's tid only when it changes, its start as a delta within the
  // list, its correlation id as a delta from the previous call's. The
  // encoder's state moves on to this call.
  struct CallDeltas {
    uint32_t tid;
    int64_t start_delta_ns;
    uint64_t duration_ns;
    int64_t correlation_id_delta;
  };
  [[gnu::always_inline]] CallDeltas next_call(uint32_t tid, Span span, uint32_t correlation_id) {
    const CallDeltas deltas{tid == previous_call_tid_ ? 0 : tid, delta(ChunkField::api_calls, span.start_ns),
                            span.duration_ns(),
                            static_cast<int64_t>(correlation_id) - static_cast<int64_t>(previous_call_correlation_)};
    previous_call_tid_ = tid;
    previous_call_correlation_ = correlation_id;
    return deltas;
  }
  // Appends one element of the repeated field `field`.
  template <typename Message>
  void append(uint32_t field, const Message& message);
  // Replaces the singular field `field`.
  template <typename Message>
  void replace(uint32_t field, const Message& message);

  // Most bytes one ApiCallFields takes on the wire: its tag, a length of at
  // most two bytes, and a body of at most 151 (every field at its widest,
  // launch arguments the larger of the two kinds).
  static constexpr size_t kApiCallMaxBytes = 256;
  // A record given to add_kept() is kept as its bytes on either side of the
  // fields that change from one record of a loop to the next (its times,
  // correlation id, an API call's tid), so that a record that repeats it
  // (add_call_repeat, add_kernel_repeat) is those bytes again around its
  // own: a copy per run of bytes instead of a field each. The deciding half
  // is the record's producer's (Translator::KeptCall, CuptiDecoder::KeptKernel),
  // which knows when the other fields are the same.
  //
  // One run of kept bytes, copied 16 bytes at a time, a vector move each,
  // past the bytes' end: `bytes` holds the size rounded up, and an element
  // has the room of its record's widest encoding (kApiCallMaxBytes,
  // kKernelMaxBytes), of which the copies reach at most 156 and 155 bytes
  // (below). A short run (N of 32 bytes or less) is copied whole, two
  // moves at most without a loop's branches; a longer one up to its size.
  // (A memcpy of the arrays' sizes was a call into libc.)
  template <size_t N>
  struct KeptBytes {
    static_assert(N % 16 == 0);
    std::array<char, N> bytes;
    uint8_t size = 0;
    [[gnu::always_inline]] void keep(const char* from, const char* to) {
      size = static_cast<uint8_t>(to - from);
      copy(bytes.data(), from, size);
    }
    [[gnu::always_inline]] char* put(char* at) const {
      copy(at, bytes.data(), size);
      return at + size;
    }
    [[gnu::always_inline]] static void copy(char* to, const char* from, size_t size) {
      if constexpr (N <= 32) {
        memcpy(to, from, N);
      } else {
        for (size_t at = 0; at < size; at += 16) memcpy(to + at, from + at, 16);
      }
    }
  };
  // An API call's: domain, callback id and name id (at most 19 bytes) before
  // its times, return code to backend (at most 90) after its correlation id.
  // The last copy reaches 2 + 6 + 19 + 33 + 96 = 156 bytes into the element.
  struct KeptCallBytes {
    KeptBytes<32> before_times;
    KeptBytes<96> after_times;
  };
  // A kernel's: device, context and stream (at most 18 bytes) before its
  // correlation id, its name id (at most 11) between that and its times,
  // grid to event_timed (at most 86) after them. The last copy reaches
  // 2 + 18 + 6 + 11 + 22 + 96 = 155 bytes into the element.
  struct KeptKernelBytes {
    KeptBytes<32> before_correlation;
    KeptBytes<16> name;
    KeptBytes<96> after_times;
  };
  // Kernel: at most 141 bytes of body.
  static constexpr size_t kKernelMaxBytes = 256;
  template <bool Kept>
  [[gnu::always_inline]] void add_kernel(file::Kernel& kernel, Span span);
  [[gnu::noinline]] static void make_room(ByteBuffer& bytes, size_t n);
  // An element of the repeated field `field` (1 to 15) written in place: its
  // tag and a one-byte length; the body goes from the position returned,
  // and end_element() sets the length, moving the body on by a byte in the
  // rare case it takes 128 bytes or more. Room for it checked before.
  template <uint32_t Field>
  [[gnu::always_inline]] static char* begin_element(ByteBuffer& bytes) {
    static_assert(Field < 16, "a one-byte tag");
    char* at = bytes.data() + bytes.size();
    at[0] = wire::kTag<Field, wire::kLengthDelimited>;
    return at + 2;
  }
  [[gnu::always_inline]] static void end_element(ByteBuffer& bytes, char* body, char* at) {
    const auto length = static_cast<size_t>(at - body);
    if (length < 0x80) [[likely]] {
      body[-1] = static_cast<char>(length);
    } else {  // below 2^14: the bodies are at most a few hundred bytes
      memmove(body + 1, body, length);
      body[-1] = static_cast<char>(length | 0x80);
      body[0] = static_cast<char>(length >> 7);
      ++at;
    }
    bytes.resize(static_cast<size_t>(at - bytes.data()));
  }

  uint64_t time_base_ns_ = 0;
  std::array<List, kFields> lists_;
  // What the previous ApiCall of this chunk carried: a call repeats its
  // thread's tid only when it changes, and its correlation id as a delta.
  uint32_t previous_call_tid_ = 0;
  uint32_t previous_call_correlation_ = 0;
  KeptCallBytes kept_call_;
  KeptKernelBytes kept_kernel_;
  std::string framed_;   // finish()'s result, its capacity reused
  std::string framing_;  // finish_in_pieces()'s first part
  Pieces pieces_;
};

template <bool Kept>
[[gnu::always_inline]] inline void ChunkEncoder::add_call(const ApiCallFields& call) {
  List& list = lists_[ChunkField::api_calls];
  if (list.bytes.capacity() - list.bytes.size() < kApiCallMaxBytes) [[unlikely]] {
    make_room(list.bytes, kApiCallMaxBytes);
  }
  const CallDeltas deltas = next_call(call.tid, call.span, call.correlation_id);

  using F = file::ApiCall::Fields;
  char* const body = begin_element<ChunkField::api_calls>(list.bytes);
  char* at = body;
  at = wire::uint_field<F::tid>(at, deltas.tid);
  char* const before_times = at;
  at = wire::uint_field<F::domain>(at, static_cast<uint32_t>(call.domain));
  at = wire::uint_field<F::callback_id>(at, call.callback_id);
  at = wire::uint_field<F::name_id>(at, call.name_id);
  if constexpr (Kept) kept_call_.before_times.keep(before_times, at);
  at = wire::sint_field<F::start_delta_ns>(at, deltas.start_delta_ns);
  at = wire::uint_field<F::duration_ns>(at, deltas.duration_ns);
  at = wire::sint_field<F::correlation_id_delta>(at, deltas.correlation_id_delta);
  char* const after_times = at;
  at = wire::int_field<F::return_code>(at, call.return_code);
  at = wire::uint_field<F::stack_id>(at, call.stack_id);
  if (call.args == ApiCallFields::Args::launch) {
    using L = file::LaunchArgs::Fields;
    char* const launch = wire::begin_short_message<F::launch>(at);  // a body of at most 64 bytes
    at = wire::uint_field<L::kernel_name_id>(launch, call.kernel_name_id);
    // Minus one, mod 2^32 (set_dims).
    at = wire::uint_field<L::grid_x_minus_one>(at, uint32_t{call.grid[0] - 1u});
    at = wire::uint_field<L::grid_y_minus_one>(at, uint32_t{call.grid[1] - 1u});
    at = wire::uint_field<L::grid_z_minus_one>(at, uint32_t{call.grid[2] - 1u});
    at = wire::uint_field<L::block_x_minus_one>(at, uint32_t{call.block[0] - 1u});
    at = wire::uint_field<L::block_y_minus_one>(at, uint32_t{call.block[1] - 1u});
    at = wire::uint_field<L::block_z_minus_one>(at, uint32_t{call.block[2] - 1u});
    at = wire::uint_field<L::dynamic_shared_bytes>(at, call.dynamic_shared_bytes);
    at = wire::uint_field<L::stream>(at, call.stream);
    wire::end_short_message(launch, at);
  } else if (call.args == ApiCallFields::Args::transfer) {
    using T = file::TransferArgs::Fields;
    char* const transfer = wire::begin_short_message<F::transfer>(at);  // a body of at most 30 bytes
    at = wire::uint_field<T::bytes>(transfer, call.bytes);
    at = wire::uint_field<T::kind>(at, static_cast<uint32_t>(call.copy_kind));
    at = wire::uint_field<T::stream>(at, call.stream);
    at = wire::uint_field<T::is_memset>(at, call.is_memset ? 1 : 0);
    wire::end_short_message(transfer, at);
  }
  at = wire::uint_field<F::backend>(at, static_cast<uint32_t>(call.backend));
  if constexpr (Kept) kept_call_.after_times.keep(after_times, at);
  end_element(list.bytes, body, at);
}

[[gnu::always_inline]] inline void ChunkEncoder::add_call_repeat(uint32_t tid, Span span, uint32_t correlation_id) {
  List& list = lists_[ChunkField::api_calls];
  if (list.bytes.capacity() - list.bytes.size() < kApiCallMaxBytes) [[unlikely]] {
    make_room(list.bytes, kApiCallMaxBytes);
  }
  const CallDeltas deltas = next_call(tid, span, correlation_id);
  using F = file::ApiCall::Fields;
  char* const body = begin_element<ChunkField::api_calls>(list.bytes);
  char* at = body;
  at = wire::uint_field<F::tid>(at, deltas.tid);
  at = kept_call_.before_times.put(at);
  at = wire::sint_field<F::start_delta_ns>(at, deltas.start_delta_ns);
  at = wire::uint_field<F::duration_ns>(at, deltas.duration_ns);
  at = wire::sint_field<F::correlation_id_delta>(at, deltas.correlation_id_delta);
  at = kept_call_.after_times.put(at);
  end_element(list.bytes, body, at);
}

template <bool Kept>
[[gnu::always_inline]] inline void ChunkEncoder::add_kernel(file::Kernel& kernel, Span span) {
  // Field by field through wire:: (one per GPU kernel, the writer's most
  // frequent record after API calls): the generated write_fields' bytes,
  // without its cursor's store per field (chunk_encoder_test compares them).
  // Inline, so that the caller's Kernel is never built in memory: its
  // fields go from registers to the wire (out of line, clearing it, filling
  // it and reading it back were ~40 of the writer's instructions per kernel,
  // callgrind).
  kernel.start_delta_ns = delta(ChunkField::kernels, span.start_ns);
  kernel.duration_ns = span.duration_ns();
  List& list = lists_[ChunkField::kernels];
  if (list.bytes.capacity() - list.bytes.size() < kKernelMaxBytes) [[unlikely]] make_room(list.bytes, kKernelMaxBytes);
  using F = file::Kernel::Fields;
  char* const body = begin_element<ChunkField::kernels>(list.bytes);
  char* at = body;
  at = wire::uint_field<F::device_id>(at, kernel.device_id);
  at = wire::uint_field<F::context_id>(at, kernel.context_id);
  at = wire::uint_field<F::stream_id>(at, kernel.stream_id);
  if constexpr (Kept) kept_kernel_.before_correlation.keep(body, at);
  at = wire::uint_field<F::correlation_id>(at, kernel.correlation_id);
  char* const name = at;
  at = wire::uint_field<F::name_id>(at, kernel.name_id);
  if constexpr (Kept) kept_kernel_.name.keep(name, at);
  at = wire::sint_field<F::start_delta_ns>(at, kernel.start_delta_ns);
  at = wire::uint_field<F::duration_ns>(at, kernel.duration_ns);
  char* const after_times = at;
  at = wire::uint_field<F::grid_x_minus_one>(at, kernel.grid_x_minus_one);
  at = wire::uint_field<F::grid_y_minus_one>(at, kernel.grid_y_minus_one);
  at = wire::uint_field<F::grid_z_minus_one>(at, kernel.grid_z_minus_one);
  at = wire::uint_field<F::block_x_minus_one>(at, kernel.block_x_minus_one);
  at = wire::uint_field<F::block_y_minus_one>(at, kernel.block_y_minus_one);
  at = wire::uint_field<F::block_z_minus_one>(at, kernel.block_z_minus_one);
  at = wire::uint_field<F::registers_per_thread>(at, kernel.registers_per_thread);
  at = wire::uint_field<F::static_shared_bytes>(at, kernel.static_shared_bytes);
  at = wire::uint_field<F::dynamic_shared_bytes>(at, kernel.dynamic_shared_bytes);
  at = wire::uint_field<F::local_memory_per_thread>(at, kernel.local_memory_per_thread);
  at = wire::uint_field<F::graph_id>(at, kernel.graph_id);
  at = wire::uint_field<F::graph_node_id>(at, kernel.graph_node_id);
  at = wire::uint_field<F::event_timed>(at, kernel.event_timed ? 1 : 0);
  if constexpr (Kept) kept_kernel_.after_times.keep(after_times, at);
  end_element(list.bytes, body, at);
}

[[gnu::always_inline]] inline void ChunkEncoder::add_kernel_repeat(uint32_t correlation_id, Span span) {
  const int64_t start_delta_ns = delta(ChunkField::kernels, span.start_ns);
  List& list = lists_[ChunkField::kernels];
  if (list.bytes.capacity() - list.bytes.size() < kKernelMaxBytes) [[unlikely]] make_room(list.bytes, kKernelMaxBytes);
  using F = file::Kernel::Fields;
  char* const body = begin_element<ChunkField::kernels>(list.bytes);
  char* at = kept_kernel_.before_correlation.put(body);
  at = wire::uint_field<F::correlation_id>(at, correlation_id);
  at = kept_kernel_.name.put(at);
  at = wire::sint_field<F::start_delta_ns>(at, start_delta_ns);
  at = wire::uint_field<F::duration_ns>(at, span.duration_ns());
  at = kept_kernel_.after_times.put(at);
  end_element(list.bytes, body, at);
}

}  // namespace prof
