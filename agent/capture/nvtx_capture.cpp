#include "capture/nvtx_capture.h"
#include "common/large_zeroed.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <string_view>

#include <nvtx3/nvToolsExt.h>

#include "agent_state.h"
#include "capture/capture_range.h"
#include "control/step_listener.h"
#include "control/step_names.h"
#include "capture/reentry_guard.h"
#include "common/clock.h"
#include "common/host_clock.h"
#include "record/recorder.h"

// NVTX declares these handle types as pointers to incomplete structs for the
// tool to define.
// Both live as long as the process (NVTX's rule for registered strings; for
// domains because records may still point at one after nvtxDomainDestroy),
// and stay reachable through a list, so that leak checkers see it is meant.
struct nvtxDomainRegistration_st {
  prof::NvtxDomain domain;
  nvtxDomainRegistration_st* next;
};
struct nvtxStringRegistration_st {
  char text[prof::kMaxPayloadString + 1];
  nvtxStringRegistration_st* next;
};

namespace prof {
namespace {


template <typename Node>
void keep_for_the_process(std::atomic<Node*>& list, Node* node) {
  node->next = list.load(std::memory_order_relaxed);
  while (!list.compare_exchange_weak(node->next, node, std::memory_order_release,
                                     std::memory_order_relaxed)) {
  }
}

// The text of an NVTX message, narrow (UTF-8) or wide (converted to UTF-8 as
// it is copied), cut to kMaxPayloadString bytes.
class MessageText {
 public:
  MessageText() = default;
  explicit MessageText(const char* text) : narrow_(text) {
    if (text != nullptr) bytes_ = strnlen(text, kMaxPayloadString);
  }
  explicit MessageText(const wchar_t* text) : wide_(text) {
    if (text == nullptr) return;
    for (const wchar_t* c = text; *c != 0; ++c) {
      const uint32_t n = utf8_length(static_cast<uint32_t>(*c));
      if (bytes_ + n > kMaxPayloadString) break;
      bytes_ += n;
    }
  }
  static MessageText of(const nvtxEventAttributes_t* attributes) {
    if (attributes == nullptr) return {};
    switch (attributes->messageType) {
      case NVTX_MESSAGE_TYPE_ASCII: return MessageText(attributes->message.ascii);
      case NVTX_MESSAGE_TYPE_UNICODE: return MessageText(attributes->message.unicode);
      case NVTX_MESSAGE_TYPE_REGISTERED:
        return attributes->message.registered != nullptr
                   ? MessageText(attributes->message.registered->text)
                   : MessageText();
      default: return {};
    }
  }

  uint32_t bytes() const { return bytes_; }

  void copy_to(char* out) const {
    if (narrow_ != nullptr) {
      memcpy(out, narrow_, bytes_);
      return;
    }
    uint32_t at = 0;
    for (const wchar_t* c = wide_; c != nullptr && at < bytes_; ++c) {
      at += encode_utf8(static_cast<uint32_t>(*c), out + at);
    }
  }

 private:
  static uint32_t utf8_length(uint32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }
  static uint32_t encode_utf8(uint32_t c, char* out) {
    const uint32_t n = utf8_length(c);
    if (n == 1) {
      out[0] = static_cast<char>(c);
    } else {
      static constexpr uint8_t kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
      for (uint32_t i = n - 1; i > 0; --i) {
        out[i] = static_cast<char>(0x80 | (c & 0x3F));
        c >>= 6;
      }
      out[0] = static_cast<char>(kLead[n] | c);
    }
    return n;
  }

  const char* narrow_ = nullptr;
  const wchar_t* wide_ = nullptr;
  uint32_t bytes_ = 0;
};

struct EventStyle {
  uint32_t color_argb = 0;
  uint32_t category = 0;
  static EventStyle of(const nvtxEventAttributes_t* attributes) {
    EventStyle style;
    if (attributes == nullptr) return style;
    if (attributes->colorType == NVTX_COLOR_ARGB) style.color_argb = attributes->color;
    style.category = attributes->category;
    return style;
  }
};

// NVTX's push/pop return value is the nesting level, which NVTX leaves to the
// tool. Each thread counts per domain; a thread using more domains than this
// gets level 0 for the extra ones (the recording itself is unaffected).
//
// The same count keeps push and pop paired when the thread's ring is full:
// for each of the first 64 levels, whether its push was recorded holding
// room for its pop (which then always fits) or was dropped (its pop is
// dropped too). Otherwise a lost pop would leave the writer's stack one
// range deeper for the rest of the run, and a lost push would let its pop
// close the range around it.
struct DomainDepth {
  const NvtxDomain* domain;
  int depth;
  uint64_t held;  // bit n: the push at level n holds room for its pop
  uint64_t lost;  // bit n: the push at level n was dropped
};
constexpr int kTrackedDomains = 8;
constexpr int kPairedLevels = 64;
thread_local DomainDepth t_depths[kTrackedDomains] = {};
thread_local int t_tracked = 0;

// Push/pop ranges open on this thread, over all its domains, plus
// kUntracked once it used a domain beyond kTrackedDomains, whose depth it
// cannot know (it then never waits for room). initial-exec: a plain
// %fs-relative load on every push, no __tls_get_addr call.
constexpr int kUntracked = 1 << 30;
[[gnu::tls_model("initial-exec")]] thread_local int t_open_pushes = 0;

DomainDepth* depth_of(const NvtxDomain* domain) {
  for (int i = 0; i < t_tracked; ++i) {
    if (t_depths[i].domain == domain) return &t_depths[i];
  }
  if (t_tracked == kTrackedDomains) {
    t_open_pushes |= kUntracked;
    return nullptr;
  }
  t_depths[t_tracked] = {domain, 0, 0, 0};
  return &t_depths[t_tracked++];
}

// Thread names are kept whatever the capture range: they name threads, not events.
enum class InRangeOnly : bool { no, yes };

ThreadBuffer* current_buffer(InRangeOnly in_range_only = InRangeOnly::yes) {
  Recorder* recorder = agent_state().recorder.load(std::memory_order_acquire);
  if (recorder == nullptr || !recorder->accepting()) return nullptr;
  if (in_range_only == InRangeOnly::yes && !capture_range_open()) return nullptr;
  return recorder->thread_buffer();
}

// Back-pressure (PROF_RING_WAIT_MS, ThreadBuffer::wait_for_room): before an
// event that begins something, when no range of this thread (nor any
// start/end range) is open, so that the wait lands in no recorded interval
// and the event's own timestamp is taken after it. Not inside a range: a
// nested push that waited would lengthen the range around it. A thread that
// makes ranges faster than the writer interns them (a million distinct
// names) is then held at its outermost level instead of losing ranges.
[[gnu::noinline]] void wait_for_room_now(ThreadBuffer* registered) {
  if (agent_state().nvtx.open_started.load(std::memory_order_relaxed) > 0) return;
  ReentryGuard guard;
  if (!guard) return;
  ThreadBuffer* buffer = current_buffer();
  if (buffer != registered) return;  // recording stopped, or outside the capture range
  const ThreadBuffer::Wait wait = buffer->wait_for_room();
  if (wait.start_ns == 0) return;
  // The wait, in the room it made: the file shows where the app was held.
  if (auto* record = begin_record<RingWaitRecord>(*buffer, RecordType::ring_wait, 0)) {
    record->start_ns = wait.start_ns;
    record->end_ns = wait.end_ns;
    buffer->commit();
  }
}

// Inline, on every push: the common case is cheap (no range open and the
// thread's ring at most half full; a thread without a ring has nothing to
// wait for).
inline void wait_for_room_between_ranges() {
  if (t_open_pushes != 0) return;
  ThreadBuffer* registered = Recorder::registered_buffer();
  if (registered == nullptr || !registered->room_may_be_short()) return;
  wait_for_room_now(registered);
}

// holding: recorded, and the room asked for is held.
enum class Recorded { yes, holding, dropped, off };

// A pop record's room, held by its push: twice its size (ThreadBuffer::reserve).
constexpr size_t kPopHold = 2 * sizeof(NvtxEventRecord);

// `hold`: ThreadBuffer::reserve's; kept (or given back) only when recorded.
Recorded record_event(RecordType type, const NvtxDomain* domain, uint64_t range_id,
                      const MessageText& message, EventStyle style, ptrdiff_t hold = 0) {
  ReentryGuard guard;
  if (!guard) return Recorded::off;
  // The buffer first, then the clock: a thread's first event allocates its
  // ring (over 100 us), which must not land inside the range it starts.
  ThreadBuffer* buffer = current_buffer();
  if (buffer == nullptr) return Recorded::off;
  if (hold > 0 && !buffer->can_hold(static_cast<size_t>(hold))) hold = 0;
  const uint64_t now = host_ticks();
  auto* record = begin_record<NvtxEventRecord>(*buffer, type, message.bytes(), hold);
  if (record == nullptr) return Recorded::dropped;
  record->time_ticks = now;
  record->domain = domain;
  record->range_id = range_id;
  record->color_argb = style.color_argb;
  record->category = style.category;
  message.copy_to(reinterpret_cast<char*>(record + 1));
  buffer->commit();
  return hold > 0 ? Recorded::holding : Recorded::yes;
}

const NvtxDomain* domain_of(nvtxDomainHandle_t handle) {
  return handle != nullptr ? &handle->domain : nullptr;
}

// PROF_STEP=nvtx:REGEX. The range that is a step on this thread: its domain
// and push depth (pushed ranges), or its id (start/end ranges). A match
// inside it is not a step.
struct StepRange {
  bool open = false;
  const NvtxDomain* domain = nullptr;
  int depth = 0;
  uint64_t range_id = 0;
};
thread_local StepRange t_step_range;

// The listener of an NVTX step rule, or null.
StepListener* nvtx_step_listener() {
  StepListener* steps = agent_state().steps.load(std::memory_order_acquire);
  if (steps == nullptr || agent_state().step_rule == nullptr ||
      agent_state().step_rule->kind() != StepRule::Kind::kNvtx) {
    return nullptr;
  }
  return steps;
}

// Whether a range name is a step: the regex runs once per distinct name, not
// once per push (a loop pushes the same few names outside its steps again
// and again), answered here for the names seen last and by step_names.h's
// table for the others. Keyed by a 64-bit hash of the name's bytes, so a
// buffer reused for another name is looked up afresh. A process-wide table
// of words, not thread_local: the agent's static TLS must stay small (see
// kernel_matches).
constexpr size_t kSeenNames = 256;
// Not in AgentState: a cache of a pure function (the rule's answer for a name).
PROF_LARGE_ZEROED std::atomic<uint64_t> g_seen_names[kSeenNames];

bool name_is_step(const StepRule& rule, const char* text, uint32_t bytes) {
  const std::string_view name(text, bytes);
  const uint64_t hash = step_name_key(name);
  std::atomic<uint64_t>& slot = g_seen_names[hash % kSeenNames];
  const uint64_t seen = slot.load(std::memory_order_relaxed);
  if ((seen | 1) == (hash | 1)) return (seen & 1) != 0;
  const bool matches = rule_takes_range(rule, name, hash);
  slot.store((hash & ~uint64_t{1}) | (matches ? 1 : 0), std::memory_order_relaxed);
  return matches;
}

// Before the range is recorded: a step's own range is in its window.
void find_step_start(const NvtxDomain* domain, int depth, uint64_t range_id, const MessageText& message) {
  if (t_step_range.open) return;
  StepListener* steps = nvtx_step_listener();
  if (steps == nullptr) return;
  char text[kMaxPayloadString + 8];
  const uint32_t bytes = std::min<uint32_t>(message.bytes(), kMaxPayloadString);
  message.copy_to(text);
  text[bytes] = '\0';
  if (!name_is_step(*agent_state().step_rule, text, bytes)) return;
  t_step_range = {true, domain, depth, range_id};
  steps->step_begins(monotonic_ns());
}

// After the range's end is recorded.
void find_step_end(const NvtxDomain* domain, int depth, uint64_t range_id) {
  if (!t_step_range.open || t_step_range.domain != domain || t_step_range.depth != depth ||
      t_step_range.range_id != range_id) {
    return;
  }
  t_step_range.open = false;
  if (StepListener* steps = nvtx_step_listener()) steps->step_ends(monotonic_ns());
}

// ---- the functions NVTX calls ----

void mark(const NvtxDomain* domain, const MessageText& message, EventStyle style) {
  wait_for_room_between_ranges();
  record_event(RecordType::nvtx_mark, domain, 0, message, style);
}

nvtxRangeId_t range_start(const NvtxDomain* domain, const MessageText& message, EventStyle style) {
  wait_for_room_between_ranges();
  agent_state().nvtx.open_started.fetch_add(1, std::memory_order_relaxed);
  const uint64_t id = agent_state().nvtx.next_range_id.fetch_add(1, std::memory_order_relaxed);
  find_step_start(domain, -1, id, message);
  record_event(RecordType::nvtx_range_start, domain, id, message, style);
  return id;
}

void range_end(const NvtxDomain* domain, nvtxRangeId_t id) {
  record_event(RecordType::nvtx_range_end, domain, id, MessageText(), {});
  find_step_end(domain, -1, id);
  // Never below 0: an end the app never started must not make a later
  // start look closed.
  int64_t open = agent_state().nvtx.open_started.load(std::memory_order_relaxed);
  while (open > 0 && !agent_state().nvtx.open_started.compare_exchange_weak(open, open - 1, std::memory_order_relaxed)) {
  }
}

int range_push(const NvtxDomain* domain, const MessageText& message, EventStyle style) {
  DomainDepth* level = depth_of(domain);
  wait_for_room_between_ranges();
  find_step_start(domain, level != nullptr ? level->depth : 0, 0, message);
  const bool paired = level != nullptr && level->depth >= 0 && level->depth < kPairedLevels;
  const Recorded recorded =
      record_event(RecordType::nvtx_push, domain, 0, message, style, paired ? static_cast<ptrdiff_t>(kPopHold) : 0);
  if (level == nullptr) return 0;
  if (paired) {
    const uint64_t bit = uint64_t{1} << level->depth;
    level->held &= ~bit;
    level->lost &= ~bit;
    if (recorded == Recorded::holding) level->held |= bit;
    if (recorded == Recorded::dropped) level->lost |= bit;
  }
  ++t_open_pushes;
  return level->depth++;
}

int range_pop(const NvtxDomain* domain) {
  DomainDepth* level = depth_of(domain);
  const int popped = level != nullptr ? level->depth - 1 : -1;
  const bool paired = popped >= 0 && popped < kPairedLevels;
  const uint64_t bit = paired ? uint64_t{1} << popped : 0;
  if (paired && (level->lost & bit) != 0) {
    // Its push was dropped: so is the pop, counted, so that it cannot close
    // the range around the lost one.
    if (ThreadBuffer* buffer = current_buffer()) buffer->count_dropped();
  } else {
    const bool held = paired && (level->held & bit) != 0;
    const Recorded recorded = record_event(RecordType::nvtx_pop, domain, 0, MessageText(), {},
                                           held ? -static_cast<ptrdiff_t>(kPopHold) : 0);
    // Not recorded (outside the capture range): the room held for it is
    // given back all the same.
    if (held && recorded == Recorded::off) {
      if (ThreadBuffer* buffer = Recorder::registered_buffer()) buffer->release_held(kPopHold);
    }
  }
  if (level == nullptr) return 0;
  if (paired) {
    level->held &= ~bit;
    level->lost &= ~bit;
  }
  // NVTX: a pop without a push is an error, reported as a negative level.
  if (level->depth <= 0) return -1;
  --level->depth;
  --t_open_pushes;
  find_step_end(domain, level->depth, 0);
  return level->depth;
}

void name_os_thread(uint32_t tid, const MessageText& name) {
  ReentryGuard guard;
  if (!guard) return;
  ThreadBuffer* buffer = current_buffer(InRangeOnly::no);
  if (buffer == nullptr) return;
  auto* record = begin_record<ThreadNameRecord>(*buffer, RecordType::thread_name, name.bytes());
  if (record == nullptr) return;
  record->tid = tid;
  record->unused = 0;
  name.copy_to(reinterpret_cast<char*>(record + 1));
  buffer->commit();
}

nvtxDomainHandle_t domain_create(const MessageText& name) {
  // Never freed: records may still point at a domain after nvtxDomainDestroy.
  auto* handle = static_cast<nvtxDomainRegistration_st*>(calloc(1, sizeof(nvtxDomainRegistration_st)));
  if (handle == nullptr) return nullptr;
  keep_for_the_process(agent_state().nvtx.domains, handle);
  const uint32_t bytes = std::min<uint32_t>(name.bytes(), sizeof(handle->domain.name) - 1);
  char copy[kMaxPayloadString];
  name.copy_to(copy);
  memcpy(handle->domain.name, copy, bytes);
  return handle;
}

nvtxStringHandle_t register_string(const MessageText& text) {
  // Registered strings live as long as the process, as NVTX specifies.
  auto* handle = static_cast<nvtxStringRegistration_st*>(calloc(1, sizeof(nvtxStringRegistration_st)));
  if (handle == nullptr) return nullptr;
  text.copy_to(handle->text);
  keep_for_the_process(agent_state().nvtx.registered_strings, handle);
  return handle;
}

// C entry points with NVTX's signatures.
void NVTX_API MarkEx(const nvtxEventAttributes_t* a) { mark(nullptr, MessageText::of(a), EventStyle::of(a)); }
void NVTX_API MarkA(const char* m) { mark(nullptr, MessageText(m), {}); }
void NVTX_API MarkW(const wchar_t* m) { mark(nullptr, MessageText(m), {}); }
nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) { return range_start(nullptr, MessageText::of(a), EventStyle::of(a)); }
nvtxRangeId_t NVTX_API RangeStartA(const char* m) { return range_start(nullptr, MessageText(m), {}); }
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* m) { return range_start(nullptr, MessageText(m), {}); }
void NVTX_API RangeEnd(nvtxRangeId_t id) { range_end(nullptr, id); }
int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) { return range_push(nullptr, MessageText::of(a), EventStyle::of(a)); }
int NVTX_API RangePushA(const char* m) { return range_push(nullptr, MessageText(m), {}); }
int NVTX_API RangePushW(const wchar_t* m) { return range_push(nullptr, MessageText(m), {}); }
int NVTX_API RangePop() { return range_pop(nullptr); }
void NVTX_API NameOsThreadA(uint32_t tid, const char* n) { name_os_thread(tid, MessageText(n)); }
void NVTX_API NameOsThreadW(uint32_t tid, const wchar_t* n) { name_os_thread(tid, MessageText(n)); }

void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { mark(domain_of(d), MessageText::of(a), EventStyle::of(a)); }
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return range_start(domain_of(d), MessageText::of(a), EventStyle::of(a)); }
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) { range_end(domain_of(d), id); }
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return range_push(domain_of(d), MessageText::of(a), EventStyle::of(a)); }
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) { return range_pop(domain_of(d)); }
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* s) { return register_string(MessageText(s)); }
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) { return register_string(MessageText(s)); }
nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) { return domain_create(MessageText(name)); }
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) { return domain_create(MessageText(name)); }
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}

template <typename Function>
void assign(NvtxFunctionTable table, unsigned int size, unsigned int index, Function function) {
  if (table != nullptr && index < size && table[index] != nullptr) {
    *table[index] = reinterpret_cast<NvtxFunctionPointer>(function);
  }
}

bool install(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable core = nullptr;
  unsigned int core_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) == 0) return false;
  assign(core, core_size, NVTX_CBID_CORE_MarkEx, MarkEx);
  assign(core, core_size, NVTX_CBID_CORE_MarkA, MarkA);
  assign(core, core_size, NVTX_CBID_CORE_MarkW, MarkW);
  assign(core, core_size, NVTX_CBID_CORE_RangeStartEx, RangeStartEx);
  assign(core, core_size, NVTX_CBID_CORE_RangeStartA, RangeStartA);
  assign(core, core_size, NVTX_CBID_CORE_RangeStartW, RangeStartW);
  assign(core, core_size, NVTX_CBID_CORE_RangeEnd, RangeEnd);
  assign(core, core_size, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  assign(core, core_size, NVTX_CBID_CORE_RangePushA, RangePushA);
  assign(core, core_size, NVTX_CBID_CORE_RangePushW, RangePushW);
  assign(core, core_size, NVTX_CBID_CORE_RangePop, RangePop);
  assign(core, core_size, NVTX_CBID_CORE_NameOsThreadA, NameOsThreadA);
  assign(core, core_size, NVTX_CBID_CORE_NameOsThreadW, NameOsThreadW);

  NvtxFunctionTable core2 = nullptr;
  unsigned int core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size) != 0) {
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, DomainMarkEx);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, DomainRangeStartEx);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, DomainRangeEnd);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, DomainRangePushEx);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, DomainRangePop);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, DomainRegisterStringA);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, DomainRegisterStringW);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, DomainCreateA);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW, DomainCreateW);
    assign(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, DomainDestroy);
  }
  return true;
}

}  // namespace

int push_named_range(const char* name) { return range_push(nullptr, MessageText(name), {}); }
int pop_named_range() { return range_pop(nullptr); }
uint64_t start_named_range(const char* name) { return range_start(nullptr, MessageText(name), {}); }
void end_named_range(uint64_t id) { range_end(nullptr, id); }

}  // namespace prof

// Exported: NVTX looks this up by name in the library named by
// NVTX_INJECTION64_PATH. Returns 1 on success, 0 to leave NVTX as no-ops.
extern "C" [[gnu::visibility("default")]] int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  return prof::install(callbacks) ? 1 : 0;
}
