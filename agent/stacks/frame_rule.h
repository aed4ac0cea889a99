#pragma once
// How to step from one x86-64 frame to its caller, read from the DWARF call
// frame information (.eh_frame) that every binary on Linux carries for C++
// exceptions: the same tables libgcc unwinds exceptions with, so stacks need
// no frame pointers and no libunwind.
//
// A rule is one row of the CFI table reduced to the three registers a stack
// walk needs: the canonical frame address (CFA, the caller's stack pointer),
// where the return address is saved, and where the caller's rbp is saved.
#include <cstdint>

namespace prof {

enum class FrameRuleKind : uint8_t {
  step,         // a frame with a rule: step to the caller
  outermost,    // no caller (return address undefined: _start, a thread's start)
  unsupported,  // CFI this walker does not follow
  no_code,      // no loaded object or no FDE holds the address (JIT code, a bad address)
};

// A register a location is relative to. CFA only for saved registers.
enum class FrameBase : uint8_t { rsp, rbp, cfa };

struct FrameRule {
  FrameRuleKind kind = FrameRuleKind::no_code;
  FrameBase cfa_base = FrameBase::rsp;  // CFA = base + cfa_offset, or *(base + offset) if cfa_deref
  bool cfa_deref = false;
  bool rbp_saved = false;               // false: the caller's rbp is this frame's rbp
  bool signal_frame = false;            // 'S' augmentation: the caller's pc is exact, not a return address
  FrameBase ra_base = FrameBase::cfa;   // return address at *(ra_base + ra_offset)
  FrameBase rbp_base = FrameBase::cfa;  // saved rbp at *(rbp_base + rbp_offset)
  int32_t cfa_offset = 0;
  int32_t ra_offset = 0;
  int32_t rbp_offset = 0;
};

// The rule for the instruction at `pc` in the code loaded in this process.
// Lock-free and allocation-free where glibc has _dl_find_object (2.35 and
// later); otherwise it walks the loaded objects with dl_iterate_phdr, which
// takes the loader's lock. Call init_frame_rules() once first.
FrameRule find_frame_rule(uint64_t pc);
void init_frame_rules();

}  // namespace prof
