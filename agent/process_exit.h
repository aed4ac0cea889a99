#pragma once
// _exit() and _Exit(): a process that ends with them skips atexit handlers,
// so the agent interposes both (LD_PRELOAD) and writes what it recorded
// first. Python's multiprocessing workers end with os._exit, and so do many
// forked children. A vfork()ed child that calls _exit shares its parent's
// memory and must not touch the agent: only the process that started this
// agent (its pid) finishes it.

namespace prof {

// Writes everything recorded and closes the file, as exit() would; nothing
// when this process is not the one recording (a vfork child, a fork child
// that does not record). Defined in agent.cpp.
void finish_before_exit();

}  // namespace prof
