// Loaded with dlopen by the stack tests, after the module map was first
// scanned: its frames must still be attributed to it.
#include "stack_test_chain.h"

extern "C" __attribute__((visibility("default"))) STACKS_TEST_FRAME uint32_t
stacks_test_library_call(StacksTestCallback fn, void* arg) {
  const uint32_t result = fn(arg);
  STACKS_TEST_NO_TAIL_CALL();
  return result;
}
