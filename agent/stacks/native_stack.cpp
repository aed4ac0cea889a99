#include "stacks/native_stack.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#if defined(__x86_64__)
#include "common/large_zeroed.h"
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
  std::atomic<uint64_t> key{0};
  // All zero bytes until the slot is published (its rule is never read
  // before), so that the table can be zero pages (PROF_LARGE_ZEROED). With
  // FrameRule's own defaults, which are not zero, it was 1 MiB of .data in
  // the library file.
  FrameRule rule{FrameRuleKind::step, FrameBase::rsp, false, false, false, FrameBase::rsp, FrameBase::rsp, 0, 0, 0};
  // The rule has the common shape, which the walk applies without choosing
  // among bases: the CFA at rsp or rbp plus an offset, the return address
  // and any saved rbp at offsets from the CFA, no signal frame.
  bool plain = false;
};
static_assert(sizeof(Slot) == 32);
PROF_LARGE_ZEROED Slot g_slots[kSlots];

// Addresses below this are no code (the null page): they end the walk and
// keep the keys 0 and kClaimed free.
constexpr uint64_t kLowestCode = 4096;
// A bound on the walk when CFI is cyclic or a stack is corrupt.
constexpr uint32_t kMaxSteps = kMaxNativeStackDepth + kMaxNativeSkipFrames + 8;
static_assert(NativeWalkMemo::kMaxStates == kMaxSteps + 1, "a memo holds every state of the longest walk");

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

namespace {

// Replays the memo's steps from `first`, the walk's current state, while each
// step's stack slots still hold what they held, and no further than the frames
// wanted: adds their frames as the walk would. Returns the index of the state
// reached.
[[gnu::no_sanitize_address]] inline uint32_t replay(const NativeWalkMemo& memo, uint32_t first, uint32_t count,
                                                    uint64_t* frames, uint32_t& depth, uint32_t max_depth,
                                                    uint32_t& skip_frames) {
  uint32_t last = count - 1;
  const uint32_t wanted = skip_frames + (max_depth - depth);
  if (last - first > wanted) last = first + wanted;
  auto holds = [&memo](uint32_t state) {
    const NativeWalkMemo::Step& step = memo.steps[state];
    return load(step.ra_address) == step.return_address &&
           (step.bp_address == 0 || load(step.bp_address) == step.caller_bp);
  };
  uint32_t state = first;
  for (; state < last && skip_frames > 0; ++state, --skip_frames) {
    if (!holds(state)) return state;
  }
  for (; state < last && holds(state); ++state) frames[depth++] = memo.steps[state].return_address;
  return state;
}

}  // namespace

// noinline: the walk starts in this function's own frame, whose CFI row the
// registers read below must match.
[[gnu::noinline, gnu::no_sanitize_address]] uint32_t capture_native_stack(uint64_t* frames,
                                                                        uint32_t max_depth,
                                                                        uint32_t skip_frames,
                                                                        NativeWalkMemo* memo) {
  if (!g_ready.load(std::memory_order_acquire) || frames == nullptr || max_depth == 0) return 0;
  max_depth = std::min(max_depth, kMaxNativeStackDepth);
  skip_frames = std::min(skip_frames, kMaxNativeSkipFrames);

  // One asm block: rsp and rbp as they are at the address `pc`, so that pc's
  // CFI row describes them.
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t bp = 0;
  asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(bp));

  // The memo is this walk's while it runs: a walk in a signal handler that
  // interrupts this one does without it.
  if (memo != nullptr) {
    if (memo->busy) {
      memo = nullptr;
    } else {
      memo->busy = true;
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
  }
  // This walk writes its states over the previous chain, one index per step,
  // while every step so far was one the memo keeps (`recording`); the
  // previous chain's states from index `step` on are still its own.
  uint32_t previous_count = memo != nullptr ? memo->count : 0;
  uint32_t candidate = 0;  // where to look for the current state in the previous chain
  bool recording = memo != nullptr;
  uint32_t recorded_until = 0;  // when recording stopped: the memo's last state
  uint32_t end_state = 0;       // the index of the state the walk ended at
  bool end_state_kept = false;  // its registers are in memo->states already
  bool ends_there = false;      // by a kept rule, so that a walk reaching it ends there too
  bool answered_by_memo = false;

  // The address whose rule applies: pc itself at first and after a signal
  // frame (the interrupted instruction), else the call before the return
  // address.
  uint64_t lookup = pc;
  uint32_t depth = 0;
  uint32_t step = 0;
  FrameRule missed;  // a rule no slot keeps (fill_slot sets it then)
  for (; step < kMaxSteps; ++step) {
    if (recording) {
      // The previous chain's states rise in sp: one forward scan finds the
      // current state's, if that walk passed through it.
      if (candidate < step) candidate = step;
      while (candidate < previous_count && memo->states[candidate].sp < sp) ++candidate;
      if (candidate < previous_count && memo->states[candidate].sp == sp &&
          memo->states[candidate].lookup == lookup && memo->states[candidate].bp == bp) {
        if (candidate != step) {  // this walk got there in fewer steps: its own come first
          const uint32_t moved = previous_count - candidate;
          std::memmove(&memo->states[step], &memo->states[candidate], moved * sizeof(NativeWalkMemo::State));
          std::memmove(&memo->steps[step], &memo->steps[candidate], moved * sizeof(NativeWalkMemo::Step));
          previous_count = step + moved;
        }
        const uint32_t reached = replay(*memo, step, previous_count, frames, depth, max_depth, skip_frames);
        if (depth == max_depth || (reached == previous_count - 1 && memo->ends_at_last)) {
          memo->count = previous_count;
          answered_by_memo = true;
          break;
        }
        // Walk on from the last state that held; the chain past it is stale.
        step = reached;
        lookup = memo->states[step].lookup;
        sp = memo->states[step].sp;
        bp = memo->states[step].bp;
        previous_count = step;
        if (step == kMaxSteps) {
          end_state = step;
          end_state_kept = true;
          break;
        }
      }
      memo->states[step] = {lookup, sp, bp};
    }
    const Slot* slot = find_slot(lookup, missed);
    uint64_t cfa = 0;
    uint64_t return_address = 0;
    if (slot != nullptr && slot->plain) [[likely]] {
      // Most frames: the general case below without its choices (half the
      // instructions per frame; mixed stacks on 3.8-3.10 walk 64 frames).
      const FrameRule& rule = slot->rule;
      cfa = (rule.cfa_base == FrameBase::rbp ? bp : sp) + static_cast<int64_t>(rule.cfa_offset);
      const uint64_t ra_address = cfa + static_cast<int64_t>(rule.ra_offset);
      const uint64_t bp_address = rule.rbp_saved ? cfa + static_cast<int64_t>(rule.rbp_offset) : 0;
      return_address = load(ra_address);
      const uint64_t caller_bp = rule.rbp_saved ? load(bp_address) : bp;
      if (cfa <= sp) {
        end_state = step;
        end_state_kept = true;
        ends_there = true;
        break;
      }
      if (recording) memo->steps[step] = {ra_address, return_address, bp_address, caller_bp};
      bp = caller_bp;
      lookup = return_address - 1;
    } else {
      if (recording) {  // the memo keeps plain steps only: it ends at this state
        recording = false;
        recorded_until = step;
        memo->count = step + 1;
      }
      const FrameRule& rule = slot != nullptr ? slot->rule : missed;
      if (rule.kind != FrameRuleKind::step) {
        end_state = step;
        ends_there = slot != nullptr;
        break;
      }
      cfa = (rule.cfa_base == FrameBase::rbp ? bp : sp) + static_cast<int64_t>(rule.cfa_offset);
      if (rule.cfa_deref) cfa = load(cfa);
      auto base = [&](FrameBase which) { return which == FrameBase::cfa ? cfa : which == FrameBase::rsp ? sp : bp; };
      return_address = load(base(rule.ra_base) + static_cast<int64_t>(rule.ra_offset));
      const uint64_t caller_bp =
          rule.rbp_saved ? load(base(rule.rbp_base) + static_cast<int64_t>(rule.rbp_offset)) : bp;
      // Each caller's frame is above its callee's, except across a signal
      // frame (the handler may run on an alternate stack).
      if (cfa <= sp && !rule.signal_frame) {
        end_state = step;
        break;
      }
      bp = caller_bp;
      lookup = rule.signal_frame ? return_address : return_address - 1;
    }
    if (return_address < kLowestCode) {
      end_state = step;
      end_state_kept = true;
      break;
    }
    pc = return_address;
    sp = cfa;
    if (skip_frames > 0) {
      --skip_frames;
      continue;
    }
    frames[depth++] = pc;
    if (depth == max_depth) {
      end_state = step + 1;
      break;
    }
  }
  if (step == kMaxSteps) end_state = step;
  if (memo != nullptr) {
    if (recording && !answered_by_memo) {
      if (!end_state_kept) memo->states[end_state] = {lookup, sp, bp};
      memo->count = end_state + 1;
      memo->ends_at_last = ends_there;
    } else if (!answered_by_memo) {
      memo->ends_at_last = recorded_until == end_state && ends_there;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    memo->busy = false;
  }
  return depth;
}

#else

// Elsewhere than x86-64, libgcc's unwinder (linked statically, kept private by
// the version script): correct, about ten times slower per frame.
[[gnu::noinline]] uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth,
                                                uint32_t skip_frames, NativeWalkMemo*) {
  if (!g_ready.load(std::memory_order_acquire) || frames == nullptr || max_depth == 0) return 0;
  BacktraceState state{frames, std::min(skip_frames, kMaxNativeSkipFrames) + 1, 0,
                       std::min(max_depth, kMaxNativeStackDepth)};
  _Unwind_Backtrace(on_frame, &state);
  return state.depth;
}

#endif

}  // namespace prof
