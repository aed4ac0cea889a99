#pragma once
// The Python side of the agent (docs/pytorch.md): in a CPython process, a
// folder of ours goes first on PYTHONPATH so that its sitecustomize.py runs
// at interpreter start-up; it waits for `import torch` and restores
// PYTHONPATH, sys.path and sys.modules as they were.
#include <string>
#include <vector>

#include "config.h"

namespace prof {

// The folder of the bootstrap's .py files, beside libprof.so:
// <dir of libprof.so>/libprof-python.
std::string python_bootstrap_dir(const std::string& library_path);

// PYTHONPATH with `dir` first, or "" when it is there already.
std::string python_path_with(const std::string& dir, const char* python_path);

// The interpreter option that keeps a sitecustomize on PYTHONPATH from
// running ('S': no site; 'I', 'E': PYTHONPATH ignored) in a CPython command
// line (argv[0] first), or 0. Options end at the program (-c, -m, a file).
char python_option_without_site(const std::vector<std::string>& argv);

// From the preload constructor, before the interpreter reads its
// environment: puts the folder on PYTHONPATH when this process is a CPython
// interpreter and PROF_TORCH is not off. At exit, says once when the
// bootstrap never ran (python -S, -I, -E).
void start_python_bootstrap(const TorchOptions& options, const std::string& library_path);

}  // namespace prof
