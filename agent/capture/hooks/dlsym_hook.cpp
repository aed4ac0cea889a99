// dlsym, exported: the runtime (static or shared) opens libcuda.so.1 with
// dlopen and finds cuGetProcAddress (or, in older runtimes and as its
// fallback, every driver function by its suffixed name) with dlsym on that
// handle. Those lookups get our wrappers, and so do lookups of runtime
// functions on a libcudart handle (Python's ctypes); every other lookup is
// glibc's.
//
// RTLD_NEXT and RTLD_DEFAULT lookups depend on who calls dlsym (glibc reads
// the return address): on x86-64 they jump straight to glibc's dlsym, so the
// caller it sees is the program's, never the agent. One exception: an
// RTLD_DEFAULT lookup of a name we export (a hooked CUDA function) finds our
// wrapper first, in the global scope, whoever asks; it must fail where the
// loaded CUDA library lacks the function, as it would without the agent
// (feature probes: `dlsym(RTLD_DEFAULT, "cudaLaunchCooperativeKernel")`).
// Those lookups go through prof_dlsym_default, whose answer is the same for
// any caller, since the global scope is searched first.
#include <dlfcn.h>

#include "capture/hooks/driver_hooks.h"
#include "capture/hooks/runtime_hooks.h"
#include "capture/hooks/real_symbols.h"

extern "C" {

// Hidden: the trampoline below jumps here for every real handle.
__attribute__((visibility("hidden"))) void* prof_dlsym_lookup(void* handle, const char* name) {
  prof::DlsymFn real = prof::real_dlsym();
  if (real == nullptr) return nullptr;
  void* found = real(handle, name);
  // Only CUDA names are ours: the driver's ("cu" then an upper-case letter)
  // and the runtime's ("cuda" then an upper-case letter).
  if (found == nullptr || name == nullptr || name[0] != 'c' || name[1] != 'u') return found;
  if (name[2] >= 'A' && name[2] <= 'Z') return prof::wrap_driver_function(name, found);
  if (name[2] == 'd' && name[3] == 'a' && name[4] >= 'A' && name[4] <= 'Z') {
    return prof::wrap_runtime_function(name, found);
  }
  return found;
}

// Whether an RTLD_DEFAULT lookup of `name` finds one of our wrappers.
__attribute__((visibility("hidden"))) bool prof_dlsym_default_finds_a_wrapper(const char* name) {
  return name != nullptr && name[0] == 'c' && name[1] == 'u' &&
         (prof::is_driver_wrapper_name(name) || prof::is_runtime_wrapper_name(name));
}

// RTLD_DEFAULT for a name we export: our wrapper only where a real
// definition stands behind it.
__attribute__((visibility("hidden"))) void* prof_dlsym_default(void* handle, const char* name) {
  prof::DlsymFn real = prof::real_dlsym();
  if (real == nullptr) return nullptr;
  void* found = real(handle, name);
  if (prof::driver_wrapper_lacks_definition(found) || prof::runtime_wrapper_lacks_definition(found)) {
    return nullptr;
  }
  return found;
}

// Where the trampoline sends pseudo handles: glibc's dlsym once known.
__attribute__((visibility("hidden"))) void* prof_real_dlsym_target = nullptr;

__attribute__((visibility("hidden"))) void* prof_dlsym_first_pseudo(void* handle, const char* name) {
  prof::DlsymFn real = prof::real_dlsym();
  prof_real_dlsym_target = reinterpret_cast<void*>(real);
  return real != nullptr ? real(handle, name) : nullptr;
}

}  // extern "C"

#if defined(__x86_64__)
// RTLD_DEFAULT is 0 and RTLD_NEXT is -1 on Linux.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
dlsym:
  test %rdi, %rdi
  jne 3f
  push %rdi
  push %rsi
  sub $8, %rsp
  mov %rsi, %rdi
  call prof_dlsym_default_finds_a_wrapper
  add $8, %rsp
  pop %rsi
  pop %rdi
  test %al, %al
  je 1f
  jmp prof_dlsym_default
3:
  cmp $-1, %rdi
  je 1f
  jmp prof_dlsym_lookup
1:
  mov prof_real_dlsym_target(%rip), %rax
  test %rax, %rax
  je 2f
  jmp *%rax
2:
  jmp prof_dlsym_first_pseudo
  .size dlsym, .-dlsym
)");
#else
// Elsewhere in C: a pseudo-handle lookup then sees the agent as its caller.
extern "C" __attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
  if (handle == RTLD_DEFAULT && prof_dlsym_default_finds_a_wrapper(name)) return prof_dlsym_default(handle, name);
  if (handle == RTLD_DEFAULT || handle == RTLD_NEXT) return prof_dlsym_first_pseudo(handle, name);
  return prof_dlsym_lookup(handle, name);
}
#endif
