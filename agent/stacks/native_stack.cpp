#include "stacks/native_stack.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__)
#include "stacks/frame_rule.h"
#else
#include <unwind.h>
#endif

namespace prof {
namespace {

// Not in AgentState: stacks/ also runs without the agent (unit
// tests, benches); g_slots caches a pure function (an address's unwind rule).
std::atomic<bool> g_ready{false};

#if defined(__x86_64__)

// Rules by address, shared by all threads: filled on a miss (the slow path,
// about a microsecond: find the FDE, run its CFI program), then read without a
// lock. A slot is published once (key 0 -> kClaimed -> address) and never
// rewritten, so a reader that sees the address sees its rule. 32768 slots:
// 1 MiB of zero pages until used; an app's stacks touch a few thousand distinct return addresses; a full probe
// sequence only means that address is looked up every time.
constexpr size_t kSlots = size_t{1} << 15;
constexpr size_t kProbes = 16;
constexpr uint64_t kClaimed = 1;
// Key and rule in one 32-byte slot: one cache line per lookup. The table is
// not in AgentState: stacks/ runs without the agent (unit tests, benches),
// and a walk reads it on the app's threads with no pointer to chase first.
struct alignas(32) Slot {
  std::atomic<uint64_t> key;
  FrameRule rule;
  // The rule has the common shape, which the walk applies without choosing
  // among bases: the CFA at rsp or rbp plus an offset, the return address
  // and any saved rbp at offsets from the CFA, no signal frame.
  bool plain = false;
};
static_assert(sizeof(Slot) == 32);
Slot g_slots[kSlots];

// Addresses below this are no code (the null page): they end the walk and
// keep the keys 0 and kClaimed free.
constexpr uint64_t kLowestCode = 4096;
// A bound on the walk when CFI is cyclic or a stack is corrupt.
constexpr uint32_t kMaxSteps = kMaxNativeStackDepth + kMaxNativeSkipFrames + 8;

bool is_plain(const FrameRule& rule) {
  return rule.kind == FrameRuleKind::step && rule.cfa_base != FrameBase::cfa && !rule.cfa_deref &&
         !rule.signal_frame && rule.ra_base == FrameBase::cfa && (!rule.rbp_saved || rule.rbp_base == FrameBase::cfa);
}

// The slot holding `address`'s rule, from `slot` (its hash) on, filled first
// when the address has none yet; null when the rule is not kept (no code
// there, or no free slot near its hash): then `rule` holds it.
[[gnu::noinline]] const Slot* fill_slot(uint64_t address, size_t slot, FrameRule& rule) {
  for (size_t probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kSlots - 1)) {
    const uint64_t key = g_slots[slot].key.load(std::memory_order_acquire);
    if (key == address) return &g_slots[slot];
    if (key != 0) continue;
    rule = find_frame_rule(address);
    // Not kept: an address no loaded object holds yet may be code later.
    if (rule.kind == FrameRuleKind::no_code) return nullptr;
    uint64_t expected = 0;
    if (!g_slots[slot].key.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) return nullptr;
    g_slots[slot].rule = rule;
    g_slots[slot].plain = is_plain(rule);
    g_slots[slot].key.store(address, std::memory_order_release);
    return &g_slots[slot];
  }
  rule = find_frame_rule(address);
  return nullptr;
}

// The slot of `address`'s rule (null: in `rule`). In the common case its
// hash's own slot: one multiply, one load, one compare.
inline const Slot* find_slot(uint64_t address, FrameRule& rule) {
  const size_t slot = static_cast<size_t>((address * 0x9e3779b97f4a7c15ULL) >> 49);
  if (g_slots[slot].key.load(std::memory_order_acquire) == address) [[likely]] return &g_slots[slot];
  return fill_slot(address, slot, rule);
}

// Stack slots the CFI says hold a saved register. Not instrumented: they are
// the frames' own return addresses and saved rbp, which AddressSanitizer
// never poisons but cannot know this function may read.
[[gnu::no_sanitize_address]] inline uint64_t load(uint64_t address) {
  return *reinterpret_cast<const uint64_t*>(address);
}

#else

struct BacktraceState {
  uint64_t* frames;
  uint32_t skip;
  uint32_t depth;
  uint32_t max_depth;
};

_Unwind_Reason_Code on_frame(struct _Unwind_Context* context, void* arg) {
  auto* state = static_cast<BacktraceState*>(arg);
  const uint64_t pc = _Unwind_GetIP(context);
  if (pc == 0) return _URC_END_OF_STACK;
  if (state->skip > 0) {
    --state->skip;
    return _URC_NO_REASON;
  }
  state->frames[state->depth++] = pc;
  return state->depth == state->max_depth ? _URC_END_OF_STACK : _URC_NO_REASON;
}

#endif

}  // namespace

bool init_native_stacks(std::string&) {
#if defined(__x86_64__)
  init_frame_rules();
#endif
  g_ready.store(true, std::memory_order_release);
  return true;
}

bool native_stacks_available() { return g_ready.load(std::memory_order_acquire); }

#if defined(__x86_64__)

// noinline: the walk starts in this function's own frame, whose CFI row the
// registers read below must match.
[[gnu::noinline, gnu::no_sanitize_address]] uint32_t capture_native_stack(uint64_t* frames,
                                                                        uint32_t max_depth,
                                                                        uint32_t skip_frames) {
  if (!g_ready.load(std::memory_order_acquire) || frames == nullptr || max_depth == 0) return 0;
  max_depth = std::min(max_depth, kMaxNativeStackDepth);
  skip_frames = std::min(skip_frames, kMaxNativeSkipFrames);

  // One asm block: rsp and rbp as they are at the address `pc`, so that pc's
  // CFI row describes them.
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t bp = 0;
  asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(bp));

  // The address whose rule applies: pc itself at first and after a signal
  // frame (the interrupted instruction), else the call before the return
  // address.
  uint64_t lookup = pc;
  uint32_t depth = 0;
  FrameRule missed;  // a rule no slot keeps (fill_slot sets it then)
  for (uint32_t step = 0; step < kMaxSteps; ++step) {
    const Slot* slot = find_slot(lookup, missed);
    uint64_t cfa = 0;
    uint64_t return_address = 0;
    if (slot != nullptr && slot->plain) [[likely]] {
      // Most frames: the general case below without its choices (half the
      // instructions per frame; mixed stacks on 3.8-3.10 walk 64 frames).
      const FrameRule& rule = slot->rule;
      cfa = (rule.cfa_base == FrameBase::rbp ? bp : sp) + static_cast<int64_t>(rule.cfa_offset);
      return_address = load(cfa + static_cast<int64_t>(rule.ra_offset));
      if (rule.rbp_saved) bp = load(cfa + static_cast<int64_t>(rule.rbp_offset));
      if (cfa <= sp) break;
      lookup = return_address - 1;
    } else {
      const FrameRule& rule = slot != nullptr ? slot->rule : missed;
      if (rule.kind != FrameRuleKind::step) break;
      cfa = (rule.cfa_base == FrameBase::rbp ? bp : sp) + static_cast<int64_t>(rule.cfa_offset);
      if (rule.cfa_deref) cfa = load(cfa);
      auto base = [&](FrameBase which) { return which == FrameBase::cfa ? cfa : which == FrameBase::rsp ? sp : bp; };
      return_address = load(base(rule.ra_base) + static_cast<int64_t>(rule.ra_offset));
      const uint64_t caller_bp =
          rule.rbp_saved ? load(base(rule.rbp_base) + static_cast<int64_t>(rule.rbp_offset)) : bp;
      // Each caller's frame is above its callee's, except across a signal
      // frame (the handler may run on an alternate stack).
      if (cfa <= sp && !rule.signal_frame) break;
      bp = caller_bp;
      lookup = rule.signal_frame ? return_address : return_address - 1;
    }
    if (return_address < kLowestCode) break;
    pc = return_address;
    sp = cfa;
    if (skip_frames > 0) {
      --skip_frames;
      continue;
    }
    frames[depth++] = pc;
    if (depth == max_depth) break;
  }
  return depth;
}

#else

// Elsewhere than x86-64, libgcc's unwinder (linked statically, kept private by
// the version script): correct, about ten times slower per frame.
[[gnu::noinline]] uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth,
                                                uint32_t skip_frames) {
  if (!g_ready.load(std::memory_order_acquire) || frames == nullptr || max_depth == 0) return 0;
  BacktraceState state{frames, std::min(skip_frames, kMaxNativeSkipFrames) + 1, 0,
                       std::min(max_depth, kMaxNativeStackDepth)};
  _Unwind_Backtrace(on_frame, &state);
  return state.depth;
}

#endif

}  // namespace prof
