#pragma once
// SIGTERM and SIGINT: write the file before the process dies of them, and
// keep the app's own handlers working exactly as before. SIGSEGV, SIGBUS,
// SIGFPE, SIGILL and SIGABRT left at their default: write what the rings
// hold (500 ms at most, never waiting on a lock), then die of the signal
// as before, core dump included; an app's own handler of these runs as
// before, with nothing flushed.
//
// The agent's handler stays installed; the app's sigaction()/signal() calls
// for these two signals are interposed (LD_PRELOAD) and remembered as "the
// app's disposition", which the agent's handler then honours:
//   default -> final flush, then die of the signal as the app would have;
//   ignore  -> the real disposition is set to ignore as well;
//   handler -> flush what is recorded (the process may not survive the
//              handler), then call the app's handler.

namespace prof {

// Installs the handlers for the signals whose disposition is "default" now
// (an inherited "ignore", as under nohup, is left alone). The handlers flush
// through agent_state().writer.
void install_signal_handlers();

}  // namespace prof
