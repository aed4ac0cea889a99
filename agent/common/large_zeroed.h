#pragma once
// PROF_LARGE_ZEROED marks a large zero-initialised table that a process
// which never records (a shell or `make` under an exported LD_PRELOAD)
// never touches. It goes to .lbss, which the linker places after all other
// zero-initialised data: the small variables every process writes at
// start then share a page or two instead of lying between the tables, and
// each page first written costs a page fault and a zeroed page (issue #30,
// docs/performance.md). GCC refuses a non-zero initialiser there (section
// type conflict), so nothing initialised can land in it by mistake.
#define PROF_LARGE_ZEROED [[gnu::section(".lbss.prof")]]
