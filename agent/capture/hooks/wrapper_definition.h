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

#define PROF_DEFINE_WRAPPER(Result, not_found, hook_value, record, wrapper, symbol, params, decl, \
                            args)                                                                \
  [[gnu::noinline]] static Result record decl {                                                  \
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
  extern "C" PROF_EXPORT Result wrapper decl __asm__(symbol);                                    \
  extern "C" Result wrapper decl {                                                               \
    using Real = Result(*) decl;                                                                 \
    auto real = reinterpret_cast<Real>(prof::known_real(prof::g_real, hook_value));              \
    if (real == nullptr || prof::hooks_may_record()) return record args;                         \
    return real args;                                                                            \
  }                                                                                              \
  PROF_WRAPPER_HERE(Result, wrapper, symbol, decl)
