#include "python_bootstrap.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "common/proc_self.h"

namespace prof {
namespace {

// Set by the constructor, read at exit; the folder put on PYTHONPATH. Not in
// AgentState: the bootstrap's own, read by nothing else.
std::string* g_bootstrap_dir = nullptr;

// The bootstrap takes its folder off PYTHONPATH as it starts; still there at
// exit, it never ran: site was not imported (-S) or PYTHONPATH was ignored
// (-I, -E).
void say_if_bootstrap_never_ran() {
  const char* path = getenv("PYTHONPATH");
  if (g_bootstrap_dir == nullptr || path == nullptr || python_path_with(*g_bootstrap_dir, path) != "") return;
  log_info("python ran without site or PYTHONPATH: libprof cannot run its Python bootstrap; PyTorch "
           "operators, modules, steps and tensor memory were not recorded (PROF_TORCH=off hides this line)");
}

}  // namespace

std::string python_bootstrap_dir(const std::string& library_path) {
  const size_t slash = library_path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : library_path.substr(0, slash);
  return folder + "/libprof-python";
}

std::string python_path_with(const std::string& dir, const char* python_path) {
  if (python_path == nullptr || *python_path == '\0') return dir;
  const size_t length = dir.size();
  if (strncmp(python_path, dir.c_str(), length) == 0 && (python_path[length] == '\0' || python_path[length] == ':')) {
    return "";
  }
  return dir + ":" + python_path;
}

char python_option_without_site(const std::vector<std::string>& argv) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') return 0;  // the program's file, or "-" (stdin)
    if (arg[1] == '-') {
      if (arg == "--") return 0;
      if (arg == "--check-hash-based-pycs") ++i;  // takes a value
      continue;
    }
    for (size_t j = 1; j < arg.size(); ++j) {
      const char option = arg[j];
      if (option == 'S' || option == 'I' || option == 'E') return option;
      if (option == 'c' || option == 'm') return 0;  // what follows is the program's
      if (option == 'W' || option == 'X') {          // takes a value, here or next
        if (j + 1 == arg.size()) ++i;
        break;
      }
    }
  }
  return 0;
}

void start_python_bootstrap(const TorchOptions& options, const std::string& library_path) {
  if (options.parts == 0 || library_path.empty()) return;
  // A CPython interpreter, or a program embedding one, exports its entry
  // point; other programs' environments are left alone.
  if (dlsym(RTLD_DEFAULT, "Py_BytesMain") == nullptr) return;
  if (const char option = python_option_without_site(command_line()); option != 0) {
    log_info("python -%c: libprof cannot run its Python bootstrap; PyTorch operators, modules, steps and "
             "tensor memory are not recorded (PROF_TORCH=off hides this line)", option);
    return;
  }
  // Absolute and without links, as Python will name the folder's files
  // (LD_PRELOAD may give a relative path).
  char* resolved = realpath(library_path.c_str(), nullptr);
  if (resolved == nullptr) return;
  const std::string dir = python_bootstrap_dir(resolved);
  free(resolved);
  const std::string path = python_path_with(dir, getenv("PYTHONPATH"));
  // Empty: there already, from the agent of a parent whose bootstrap did not
  // run. The constructor runs before main: no other thread reads the
  // environment yet.
  if (!path.empty()) setenv("PYTHONPATH", path.c_str(), 1);
  // The exit check only in an interpreter: a program embedding Python
  // (an editor's plugins) may never start it, which is nothing to report.
  const std::string executable = executable_path();
  const size_t slash = executable.rfind('/');
  if (executable.compare(slash == std::string::npos ? 0 : slash + 1, 6, "python") != 0) return;
  g_bootstrap_dir = new std::string(dir);
  atexit(say_if_bootstrap_never_ran);
}

}  // namespace prof
