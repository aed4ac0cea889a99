// The wrappers' tables are distances from each entry to its wrapper, which
// the static linker fills in (wrapper_offsets.h): read back, each must be
// the function's own address, in the order written.
#include <catch2/catch.hpp>

#include "capture/hooks/wrapper_offsets.h"

extern "C" {
[[gnu::visibility("hidden"), gnu::noinline]] int prof_test_first_function() { return 1; }
[[gnu::visibility("hidden"), gnu::noinline]] int prof_test_second_function() { return 2; }
[[gnu::visibility("hidden")]] int prof_test_variable = 3;
}

asm(PROF_WRAPPER_OFFSETS_BEGIN("prof_test_offsets")
    PROF_WRAPPER_OFFSET("prof_test_second_function")
    PROF_WRAPPER_OFFSET("prof_test_first_function")
    PROF_WRAPPER_OFFSET("prof_test_variable")
    PROF_WRAPPER_OFFSET("prof_test_second_function")
    PROF_WRAPPER_OFFSETS_END);
extern "C" PROF_WRAPPER_OFFSETS_DECLARE(prof_test_offsets);

TEST_CASE("wrapper offsets give back the addresses they were written from", "[wrapper offsets]") {
  CHECK(prof::address_at(prof_test_offsets, 0) == reinterpret_cast<void*>(&prof_test_second_function));
  CHECK(prof::address_at(prof_test_offsets, 1) == reinterpret_cast<void*>(&prof_test_first_function));
  CHECK(prof::address_at(prof_test_offsets, 2) == static_cast<void*>(&prof_test_variable));
  CHECK(prof::address_at(prof_test_offsets, 3) == reinterpret_cast<void*>(&prof_test_second_function));
  using Function = int (*)();
  CHECK(reinterpret_cast<Function>(prof::address_at(prof_test_offsets, 1))() == 1);
}
