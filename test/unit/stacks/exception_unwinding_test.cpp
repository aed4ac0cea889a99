// libunwind, loaded privately by init_native_stacks, must not take over the
// app's C++ exception unwinding: libunwind.so.8 exports _Unwind_* and a weak
// `backtrace`. This is a process of its own that links nothing else which
// could load libunwind, so the check is meaningful.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "capture/native_stack.h"
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

// The file that defines `name` in the global scope, "" when none does.
std::string global_definer(const char* name) {
  void* address = dlsym(RTLD_DEFAULT, name);
  if (address == nullptr) return {};
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

}  // namespace

TEST_CASE("capture returns no frames before init") {
  REQUIRE_FALSE(prof::native_stacks_available());
  uint64_t frames[8];
  CHECK(prof::capture_native_stack(frames, 8, 0) == 0);
}

TEST_CASE("C++ exceptions still unwind through the app's unwinder once libunwind is loaded privately") {
  // Nothing loaded libunwind before us: otherwise this tests nothing.
  REQUIRE(dlopen("libunwind.so.8", RTLD_NOW | RTLD_NOLOAD) == nullptr);
  std::string why;
  INFO("init_native_stacks: " << why);
  REQUIRE(prof::init_native_stacks(why));
  void* loaded = dlopen("libunwind.so.8", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(loaded != nullptr);  // it is in the process now...
  dlclose(loaded);

  // ...but none of its exception ABI or `backtrace` is in the global scope.
  for (const char* name : {"_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Backtrace",
                           "_Unwind_GetIP", "_Unwind_Find_FDE", "backtrace", "unw_backtrace"}) {
    INFO(name);
    CHECK(global_definer(name).find("libunwind") == std::string::npos);
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
