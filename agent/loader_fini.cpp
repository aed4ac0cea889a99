// The function the loader calls when it unloads libprof.so (DT_FINI, set by
// -Wl,-fini=prof_loader_fini in CMakeLists.txt). The default, the C
// runtime's _fini, does nothing here either (destructors run from
// .fini_array) but sits in .fini at the very end of the text, so every
// process under LD_PRELOAD faulted in a window of code at exit for its few
// bytes (issue #30); this one lies among the start-up code
// (start_up_functions.ld).
extern "C" __attribute__((visibility("hidden"), used)) void prof_loader_fini() {}
