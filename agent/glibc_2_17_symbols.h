#pragma once
// What glibc_2_17_symbols.cpp tells the rest of the agent (release builds;
// the sanitizer builds link libdl and libpthread as needed).

namespace prof {

#if PROF_WEAK_GLIBC_IMPORTS
// False on a glibc before 2.34 in a process that loaded neither libpthread
// nor libdl: the agent then stays dormant.
bool glibc_threads_and_dl_loaded();
#else
inline bool glibc_threads_and_dl_loaded() { return true; }
#endif

}  // namespace prof
