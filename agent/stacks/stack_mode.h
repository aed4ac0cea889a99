#pragma once
// PROF_STACKS: which call stacks an API call carries.
#include <cstdint>

#include "common/option_words.h"

namespace prof {

// automatic: mixed in a process running a CPython whose frames the agent
// reads, native elsewhere (decided when CUDA starts).
enum class StackMode : uint8_t { none, native, python, mixed, automatic };

// PROF_STACKS's words (unset: auto).
inline constexpr OptionWord<StackMode> kStackModeWords[] = {
    {"auto", StackMode::automatic}, {"native", StackMode::native}, {"python", StackMode::python},
    {"mixed", StackMode::mixed},    {"none", StackMode::none}};

inline const char* stack_mode_name(StackMode mode) { return word_of(kStackModeWords, mode); }

}  // namespace prof
