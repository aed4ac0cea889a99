// The agent's stack walker must leave the app's C++ exception unwinding and
// glibc's backtrace() as they were, and must load nothing (libunwind.so.8,
// which the agent once dlopened, exports _Unwind_* and a weak `backtrace`).
// A process of its own that links nothing else which could load libunwind.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "stacks/native_stack.h"
#include "stack_test_chain.h"

namespace {

int destructors_run = 0;

struct CountsUnwinding {
  ~CountsUnwinding() { ++destructors_run; }
};

STACKS_TEST_FRAME void throw_from_depth(int depth) {
  CountsUnwinding guard;
  if (depth == 0) throw std::runtime_error("thrown at depth 0");
  throw_from_depth(depth - 1);
  STACKS_TEST_NO_TAIL_CALL();
}

struct BothStacks {
  void* glibc[64];
  int glibc_depth = 0;
  uint64_t agent[64];
  uint32_t agent_depth = 0;
};

// glibc's backtrace() and the agent's walk from one frame: above entry 0
// (two call sites in this function) they must agree.
STACKS_TEST_FRAME void both_stacks(BothStacks& stacks) {
  stacks.glibc_depth = backtrace(stacks.glibc, 64);
  stacks.agent_depth = prof::capture_native_stack(stacks.agent, 64, 0);
  // AddressSanitizer and ThreadSanitizer intercept backtrace(): its first
  // frame is then in their runtime, not in this file. The frames after it
  // are glibc's. strcmp, not std::string: this runs in a signal handler too,
  // where allocating is unsafe (ThreadSanitizer reported it).
  Dl_info ours{}, first{};
  if (stacks.glibc_depth > 0 && dladdr(reinterpret_cast<void*>(&both_stacks), &ours) != 0 &&
      dladdr(stacks.glibc[0], &first) != 0 && ours.dli_fname != nullptr && first.dli_fname != nullptr &&
      std::strcmp(ours.dli_fname, first.dli_fname) != 0) {
    for (int i = 1; i < stacks.glibc_depth; ++i) stacks.glibc[i - 1] = stacks.glibc[i];
    --stacks.glibc_depth;
  }
  STACKS_TEST_NO_TAIL_CALL();
}

// The file that defines `name` in the global scope, "" when none does.
std::string global_definer(const char* name) {
  void* address = dlsym(RTLD_DEFAULT, name);
  if (address == nullptr) return {};
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

BothStacks g_in_handler;

void on_signal(int) { both_stacks(g_in_handler); }

// Raises the signal from a frame of its own, so that the walk must cross the
// kernel's signal frame (glibc's __restore_rt, whose CFI is DWARF
// expressions over the saved context) to reach it and main.
STACKS_TEST_FRAME void raise_signal() {
  raise(SIGUSR1);
  STACKS_TEST_NO_TAIL_CALL();
}

}  // namespace

TEST_CASE("C++ exceptions and backtrace() are the app's own once the agent's stacks are on") {
  BothStacks stacks[2];
  std::string why;
  INFO("init_native_stacks: " << why);
  for (BothStacks& round : stacks) {
    if (&round == &stacks[1]) REQUIRE(prof::init_native_stacks(why));
    both_stacks(round);
  }
  // Nothing was loaded for the agent's stacks: no libunwind, privately or not.
  CHECK(dlopen("libunwind.so.8", RTLD_NOW | RTLD_NOLOAD) == nullptr);
  for (const char* name : {"_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Backtrace",
                           "_Unwind_GetIP", "_Unwind_Find_FDE", "backtrace", "unw_backtrace"}) {
    INFO(name);
    CHECK(global_definer(name).find("libunwind") == std::string::npos);
  }
  // backtrace() gives the same frames before and after; the agent's walk,
  // none before init and then the frames backtrace() finds.
  REQUIRE(stacks[0].glibc_depth > 3);
  REQUIRE(stacks[1].glibc_depth == stacks[0].glibc_depth);
  for (int i = 0; i < stacks[0].glibc_depth; ++i) CHECK(stacks[1].glibc[i] == stacks[0].glibc[i]);
  CHECK(stacks[0].agent_depth == 0);
  REQUIRE(stacks[1].agent_depth == static_cast<uint32_t>(stacks[1].glibc_depth));
  for (uint32_t i = 1; i < stacks[1].agent_depth; ++i) {
    CHECK(stacks[1].agent[i] == reinterpret_cast<uintptr_t>(stacks[1].glibc[i]));
  }

  destructors_run = 0;
  std::string caught;
  try {
    throw_from_depth(5);
  } catch (const std::runtime_error& error) {
    caught = error.what();
    uint64_t frames[16];
    CHECK(prof::capture_native_stack(frames, 16, 0) > 0);  // and stacks work inside a handler
  }
  CHECK(caught == "thrown at depth 0");
  CHECK(destructors_run == 6);

  // Rethrow across a catch(...) and an exception_ptr too.
  std::exception_ptr saved;
  try {
    try {
      throw_from_depth(2);
    } catch (...) {
      saved = std::current_exception();
      throw;
    }
  } catch (const std::exception&) {
  }
  REQUIRE(saved);
  CHECK_THROWS_WITH(std::rethrow_exception(saved), "thrown at depth 0");
}

// After the test above, which needs the agent not yet initialised.
TEST_CASE("a stack taken in a signal handler crosses the signal frame as backtrace() does") {
  std::string why;
  REQUIRE(prof::init_native_stacks(why));
  struct sigaction action = {};
  action.sa_handler = on_signal;
  REQUIRE(sigaction(SIGUSR1, &action, nullptr) == 0);
  raise_signal();
  signal(SIGUSR1, SIG_DFL);
  const BothStacks& stacks = g_in_handler;
  REQUIRE(stacks.glibc_depth > 4);
  REQUIRE(stacks.agent_depth == static_cast<uint32_t>(stacks.glibc_depth));
  for (uint32_t i = 1; i < stacks.agent_depth; ++i) {
    INFO("frame " << i);
    CHECK(stacks.agent[i] == reinterpret_cast<uintptr_t>(stacks.glibc[i]));
  }
}
