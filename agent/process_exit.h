#pragma once
// How a process ends, as the agent sees it.
//
// _exit() and _Exit(): a process that ends with them skips atexit handlers,
// so the agent interposes both (LD_PRELOAD) and writes what it recorded
// first. Python's multiprocessing workers end with os._exit, and so do many
// forked children. A vfork()ed child that calls _exit shares its parent's
// memory and must not touch the agent: only the process that started this
// agent (its pid) finishes it.
//
// exit() from several threads at once: glibc before 2.41 lets each run the
// atexit handlers it pops and then end the process, so a thread that did
// not pop the agent's handler ended the process while another was still
// writing the file. The agent interposes exit() too: the first caller
// goes on as before; a later one, and any thread that reaches the agent's
// exit handler while another thread is finishing, waits (bounded) until
// the file is written.

#include <cstdint>

namespace prof {

// Writes everything recorded and closes the file, as exit() would; nothing
// when this process is not the one recording (a vfork child, a fork child
// that does not record). Defined in agent.cpp.
void finish_before_exit();

// Around agent.cpp's finish(): the thread that finishes says so, and a
// thread that comes second waits for it.
void note_finish_begins();
void note_finish_done();
// Waits until a finish begun (or about to begin, when `even_before_begun`)
// in another thread is done, or `timeout_ms` passed.
void wait_for_finish(bool even_before_begun, uint32_t timeout_ms);

}  // namespace prof

namespace prof {

// exec*(): the image that calls it is replaced, with no exit: what it
// recorded is written first, to a file of its own (the next image, the
// same pid, claims another: run_claim.h), as at exit. Nothing for a vfork
// child (not the recording pid). When the exec fails the process goes on
// unrecorded. Defined in agent.cpp.
void finish_before_exec();

// A process that never recorded (no writer thread: a shell, `timeout`, a
// launcher) dying of a signal it sent itself, as such programs do to die
// of their child's SIGINT: with no writer thread to say it, this thread says
// the run's line and removes its folder, as at exit. False (nothing done)
// when this process records or is not the one that started the agent.
// Only from a handler of a self-sent signal (kill(getpid()), raise()): it
// allocates, which is safe only where the program itself called in.
bool finish_unrecorded_before_signal_death();

}  // namespace prof
