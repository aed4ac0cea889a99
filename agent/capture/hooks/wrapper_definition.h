#pragma once
// The definition of one CUDA wrapper, shared by driver_hooks.cpp and
// runtime_hooks.cpp, which expand it at global scope after defining, in
// namespace prof, `real_of(Hook)`, `g_real` (what each wrapper forwards to)
// and `g_functions`.
//
// `before_real_call(hook)` (defined by the includer, constant-folded for
// all but a few hooks) runs before the call is recorded: the context
// teardowns (context_teardown.h).
//
// A bound call whose function the loaded library lacks returns `not_found`:
// the error the real runtime gives for an entry point it cannot reach
// (docs/reliability.md).
//
// An asm label gives the wrapper the CUDA function's own (ABI) name while its
// C++ name stays clear of the CUDA headers' declarations and version macros.
// While the hooks record nothing (CUPTI does), the wrapper is two loads, a
// test and a jump to the real function; the recording path is a function of
// its own so that the pass-through needs no stack frame. The caller pastes
// and quotes the function's name (`record`, `wrapper`, `symbol`): the CUDA
// headers define some names as macros (cuDeviceGetUuid -> ..._v2), which an
// argument passed on would expand.
//
// On x86-64 the exported wrapper is assembly (PROF_PASS_THROUGHS below), in
// one top-level asm block per family that its includer writes from the same
// list as its tables. In C++ it needed no frame either, but GCC moved every
// argument passed on the stack (cuLaunchKernel's five) or as a struct (a
// dim3) into registers and back before its jump: 27 instructions for
// cuLaunchKernel, 24 for __cudaLaunchKernel, 8 in assembly (callgrind,
// tiny_kernels). (A naked C++ function holding the same code as extended
// asm, tried before, is what GCC documents as unsupported, and at -O0 it
// broke every runtime launch: GCC stored its dim3 parameters through
// argument registers.) Top-level asm is the supported way, at every
// optimisation level and under the sanitizers.
#include "capture/hooks/hooked_call.h"
#include "capture/hooks/wrapper_table.h"

#define PROF_UNPACK(...) __VA_ARGS__
#define PROF_EXPORT __attribute__((visibility("default")))

// `wrapper`_here: the wrapper exported as `symbol`, under a hidden alias
// that the tables of wrappers (kWrappers) point to. The exported name's
// address would be a symbol the loader looks up in every process at start
// (one lookup per wrapper: 400, issue #30) and could resolve to another
// object's definition of the name; the alias is this copy's own wrapper,
// a relative relocation.
#define PROF_WRAPPER_HERE(Result, wrapper, symbol, decl) \
  extern "C" __attribute__((alias(symbol), visibility("hidden"))) Result wrapper##_here decl;

#if defined(__x86_64__) && defined(__ELF__)
#define PROF_PASS_THROUGH_IN_ASM 1
#else
#define PROF_PASS_THROUGH_IN_ASM 0
#endif

// The recording path, under its own assembler name (`record`, extern "C"),
// which the assembly wrapper jumps to; `used`: no C++ code calls it there.
#define PROF_DEFINE_WRAPPER(Result, not_found, hook_value, record, wrapper, symbol, params, decl, \
                            args)                                                                \
  extern "C" [[gnu::noinline, gnu::used, gnu::visibility("hidden")]] Result record decl {        \
    using Real = Result(*) decl;                                                                 \
    const auto hook = hook_value;                                                                \
    auto real = reinterpret_cast<Real>(prof::real_of(hook));                                     \
    if (real == nullptr) return not_found;                                                       \
    prof::before_real_call(hook);                                                                \
    prof::HookedCall call;                                                                       \
    const params hook_params{PROF_UNPACK args};                                                  \
    if (!call.begin(prof::g_functions[static_cast<uint32_t>(hook)],                              \
                    sizeof(params) > 1 ? &hook_params : nullptr)) {                              \
      return real args;                                                                          \
    }                                                                                            \
    const Result result = real args;                                                             \
    call.end(result);                                                                            \
    return result;                                                                               \
  }                                                                                              \
  PROF_DEFINE_PASS_THROUGH(Result, hook_value, record, wrapper, symbol, decl, args)

#if PROF_PASS_THROUGH_IN_ASM
// The exported wrapper is in the family's PROF_PASS_THROUGHS block.
#define PROF_DEFINE_PASS_THROUGH(Result, hook_value, record, wrapper, symbol, decl, args)

// Under CET's indirect branch tracking (-fcf-protection), a function that
// may be reached by an indirect call or jump starts with endbr64.
#if defined(__CET__) && (__CET__ & 1)
#define PROF_ENDBR "endbr64\n"
#else
#define PROF_ENDBR ""
#endif

// One family's wrappers, in the order of its `reals` array (the slots the
// wrappers forward to, g_real, by its assembler name):
//   asm(PROF_PASS_THROUGHS_BEGIN
//       PROF_PASS_THROUGH("prof_driver_real", "cuInit", "prof_hook_cuInit_here", "prof_record_cuInit") ...
//       PROF_PASS_THROUGHS_END);
// The assembler counts the slots (.Lprof_slot, bytes into `reals`), so
// that entry i reads slot i. Each wrapper: the real definition, if known,
// unless the hooks may record (hooks_may_record(), hooked_call.h: the
// mode's byte, bit 1 cleared, is 1), gets a jump with the arguments as the
// caller left them; else the recording path does. Only r10 and r11, which
// carry no argument, and no stack, so its unwind rule is the entry's all
// through. Plain loads: on x86-64 they are the acquire loads the C++ makes.
// Also the family's `_here` alias (PROF_WRAPPER_HERE's), hidden.
#define PROF_PASS_THROUGHS_BEGIN                          \
  ".pushsection .text.prof_cuda_wrappers,\"ax\",@progbits\n" \
  ".set .Lprof_slot, 0\n"
#define PROF_PASS_THROUGH(reals, symbol, here, record) \
  ".p2align 4\n"                                       \
  ".globl " symbol "\n"                                \
  ".type " symbol ",@function\n"                       \
  ".globl " here "\n"                                  \
  ".hidden " here "\n"                                 \
  ".type " here ",@function\n"                         \
  symbol ":\n" here ":\n"                              \
  ".cfi_startproc\n"                                   \
  PROF_ENDBR                                          \
  "movq " reals "+.Lprof_slot(%rip), %r11\n"           \
  "testq %r11, %r11\n"                                 \
  "je " record "\n"                                    \
  "movzbl prof_hook_mode(%rip), %r10d\n"               \
  "andl $-3, %r10d\n"                                  \
  "cmpl $1, %r10d\n"                                   \
  "je " record "\n"                                    \
  "jmp *%r11\n"                                        \
  ".cfi_endproc\n"                                     \
  ".size " symbol ", .-" symbol "\n"                   \
  ".size " here ", .-" here "\n"                       \
  ".set .Lprof_slot, .Lprof_slot + 8\n"
#define PROF_PASS_THROUGHS_END ".popsection\n"
static_assert(sizeof(std::atomic<void*>) == 8, "a slot of `reals` is 8 bytes in PROF_PASS_THROUGH");
#else
#define PROF_DEFINE_PASS_THROUGH(Result, hook_value, record, wrapper, symbol, decl, args) \
  extern "C" PROF_EXPORT Result wrapper decl __asm__(symbol);                            \
  extern "C" Result wrapper decl {                                                       \
    using Real = Result(*) decl;                                                         \
    auto real = reinterpret_cast<Real>(prof::known_real(prof::g_real, hook_value));      \
    if (real == nullptr || prof::hooks_may_record()) return record args;                 \
    return real args;                                                                    \
  }                                                                                      \
  PROF_WRAPPER_HERE(Result, wrapper, symbol, decl)
#endif
