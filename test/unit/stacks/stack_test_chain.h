#pragma once
// Known call chains for the stack tests: functions that stay real frames
// (not inlined, not cloned into `.constprop` copies, not tail-called) so the
// test knows which names a captured stack must show, in which order.
#include <cstdint>

#if defined(__clang__)
#define STACKS_TEST_FRAME __attribute__((noinline))
#else
#define STACKS_TEST_FRAME __attribute__((noinline, noclone))
#endif

// Keeps the call before it from becoming a tail call (which would drop the
// caller's frame).
#define STACKS_TEST_NO_TAIL_CALL() asm volatile("" ::: "memory")

// The shared library the tests dlopen (stack_test_library.cpp): calls `fn`
// from a frame of its own.
extern "C" {
using StacksTestCallback = uint32_t (*)(void* arg);
uint32_t stacks_test_library_call(StacksTestCallback fn, void* arg);
}
