#pragma once
// The runtime's entry points as the hooks hand them out: through our exported
// symbols (programs linked against libcudart.so) and through dlsym on a
// libcudart handle (Python's ctypes, and anything else that loads the
// runtime with dlopen and looks its functions up by name).

namespace prof {

// Our wrapper for the runtime function `name` found at `real`, or `real`
// itself when we have none or `real` is another runtime's than the one the
// wrapper already forwards to. Remembers `real` as the wrapper's target.
void* wrap_runtime_function(const char* name, void* real);

// dlsym(RTLD_DEFAULT, name) finds our exported wrapper first, whether or not
// the loaded library defines the function: whether `name` is one of ours,
// and whether the wrapper at `address` has no real definition behind it (the
// lookup then fails, as it would without the agent).
bool is_runtime_wrapper_name(const char* name);
bool runtime_wrapper_lacks_definition(const void* address);

}  // namespace prof
