#pragma once
// The driver's entry points as the hooks hand them out: through our
// exported symbols (apps and runtimes linked against libcuda), through
// cuGetProcAddress (CUDA 12+ runtimes, static or shared) and through dlsym on
// libcuda (older runtimes, and the runtime's fallback to suffixed names).

namespace prof {

// Our wrapper for the driver function at `real` (named `name` in the driver,
// nullptr if unknown), or `real` itself when we have none or the hooks are
// off. Remembers `real` as the definition the wrapper forwards to.
void* wrap_driver_function(const char* name, void* real);

// Whether the hooks hand out wrappers (PROF_BACKEND is not cupti).
void enable_driver_wrappers();

// dlsym(RTLD_DEFAULT, name) finds our exported wrapper first, whether or not
// the loaded library defines the function: whether `name` is one of ours,
// and whether the wrapper at `address` has no real definition behind it (the
// lookup then fails, as it would without the agent).
bool is_driver_wrapper_name(const char* name);
bool driver_wrapper_lacks_definition(const void* address);

}  // namespace prof
