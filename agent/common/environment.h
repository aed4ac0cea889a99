#pragma once
// The process's environment as libc holds it, read and set by the agent
// without the program's own getenv/setenv: bash defines both (over its
// shell variables), and a preloaded library's calls bind to the program's
// definitions first. Through bash's, the agent's constructor saw no
// PROF_RUN and its setenv went nowhere, so every bash script's commands
// took themselves for runs of their own.

namespace prof {

// The value of `name` in libc's environ, or nullptr.
const char* env_value(const char* name);

// libc's setenv (the next definition after the agent).
void env_set(const char* name, const char* value, bool overwrite);

}  // namespace prof
