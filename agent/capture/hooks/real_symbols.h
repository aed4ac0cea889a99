#pragma once
// The definitions our exported hooks stand in front of. Never through our
// own dlsym (exported by the agent, see dlsym_hook.cpp): the real one comes
// from dlvsym, which the agent does not interpose.
namespace prof {

using DlsymFn = void* (*)(void*, const char*);

// glibc's dlsym. Thread-safe; resolved on first use.
DlsymFn real_dlsym();

// The next definition of `name` after the agent: RTLD_NEXT, else the loaded
// library whose file name contains `library` (a library the app dlopened
// RTLD_LOCAL, as Python extensions do, is not in RTLD_NEXT's scope).
// nullptr when there is none.
void* next_definition(const char* name, const char* library);

}  // namespace prof
