#pragma once
// What the integration runners' small CUDA apps share: a failed call ends
// the app with status 2 and the call's name, and a one-kernel PTX module
// loaded through the driver API into the current context.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

inline void check(int result, const char* what) {
  if (result != 0) {
    std::fprintf(stderr, "%s failed: %d\n", what, result);
    std::exit(2);
  }
}

// ptx: a module's text holding an entry named `entry`.
inline CUfunction load_ptx_function(const char* ptx, const char* entry) {
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, ptx), "cuModuleLoadData");
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, module, entry), "cuModuleGetFunction");
  return function;
}
