#include "signals.h"

#include <signal.h>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "agent_state.h"
#include "process_exit.h"
#include "common/clock.h"
#include "common/glibc_function.h"
#include "record/writer.h"

namespace prof {
namespace {

using SigactionFunction = int (*)(int, const struct sigaction*, struct sigaction*);

constexpr uint32_t kFinalFlushTimeoutMs = 3000;
constexpr uint32_t kCheckpointTimeoutMs = 1000;
// A crash waits this long at most for the writer to write what the rings
// hold: the writer may be the thread that crashed, or be stuck on a lock
// (malloc's) the crashing thread holds; the process then dies without it.
constexpr uint32_t kCrashFlushTimeoutMs = 500;

bool is_crash(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

// Set by the first thread that crashes: a second crash (another thread, or
// this handler itself faulting on a different signal) does not flush again.
// Not in AgentState: a crash may come before the agent has one, and the
// handler reads it first, with nothing else known to be sound.
std::atomic<bool> g_crashing{false};

// The entry of `sig` when the agent may handle it, else nullptr.
SignalState::Managed* managed_signal(int sig) {
  for (size_t i = 0; i < std::size(kManagedSignals); ++i) {
    if (kManagedSignals[i] == sig) return &agent_state().signals.managed[i];
  }
  return nullptr;
}

// Whether the agent's handler is installed for `sig` (for any signal number).
bool handled_by_agent(int sig) {
  const SignalState::Managed* managed = managed_signal(sig);
  return managed != nullptr && managed->active.load(std::memory_order_acquire);
}

// Not in AgentState: the program's and the sanitizers' sigaction() calls
// reach the interposer before the agent's constructor has run.
std::atomic<SigactionFunction> g_real_sigaction{nullptr};

SigactionFunction real_sigaction() { return next_libc_definition(g_real_sigaction, "sigaction"); }

// The app's disposition of a managed signal as its last sigaction() left
// it. A handler reads it on one thread while the app may be changing it on
// another, so the copy is retried while a write overlaps it; a handler that
// interrupted a write on its own thread takes the copy after a few tries
// rather than wait for a write that cannot finish until it returns.
struct sigaction app_action_of(const SignalState::Managed& managed) {
  constexpr int kTries = 64;
  for (int tried = 1;; ++tried) {
    const uint32_t before = managed.app_action_writes.load(std::memory_order_acquire);
    const struct sigaction copy = managed.app_action;
    std::atomic_thread_fence(std::memory_order_acquire);
    const bool whole = (before & 1) == 0 && managed.app_action_writes.load(std::memory_order_relaxed) == before;
    if (whole || tried == kTries) return copy;
  }
}

void set_app_action(SignalState::Managed& managed, const struct sigaction& action) {
  managed.app_action_writes.fetch_add(1, std::memory_order_acq_rel);
  managed.app_action = action;
  managed.app_action_writes.fetch_add(1, std::memory_order_release);
}

bool is_default(const struct sigaction& action) {
  return !(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_DFL;
}
bool is_ignore(const struct sigaction& action) {
  return !(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_IGN;
}

void on_signal(int sig, siginfo_t* info, void* context);

// The real disposition for a managed signal given the app's wish.
struct sigaction real_action_for(const struct sigaction& app) {
  if (is_ignore(app)) return app;
  struct sigaction ours = app;  // keep the app's mask and SA_RESTART & co.
  if (is_default(app)) {
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_RESTART;
  }
  ours.sa_flags |= SA_SIGINFO;
  // A crash may come from a thread whose stack is spent: its alternate
  // stack, if the app gave it one.
  ours.sa_flags |= SA_ONSTACK;
  // SA_RESETHAND is emulated in on_signal, where the app's view is updated.
  ours.sa_flags &= ~SA_RESETHAND;
  ours.sa_sigaction = on_signal;
  return ours;
}

// The kernel's own disposition back for `sig` (the app's view is left as it is).
void restore_default_action(int sig) {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction()(sig, &dfl, nullptr);
}

void die_of(int sig) {
  restore_default_action(sig);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(sig);
}

// The app left a crash signal at its default: write what the rings hold
// (bounded), then die of the signal as the process would have, core dump
// included. A fault (SIGSEGV from the CPU, not from kill()) returns to the
// faulting instruction with the default action back in place, so that the
// core shows the fault itself; a sent signal is raised again, and delivered
// as the handler returns.
void crash(int sig, const siginfo_t* info, Writer* writer) {
  if (!g_crashing.exchange(true)) {
    if (writer != nullptr) {
      writer->flush_for_handler(true, sig, kCrashFlushTimeoutMs);
    }
  } else {
    // Another thread is writing: let it, for as long as it may take.
    sleep_ms(kCrashFlushTimeoutMs);
  }
  restore_default_action(sig);
  const bool fault = info != nullptr && info->si_code > 0 && sig != SIGABRT;
  if (!fault) raise(sig);  // pending (blocked in this handler) until we return
}

// The app left `sig` at its default: write the run's end (bounded), then
// die of the signal as the process would have.
void finish_and_die_of(int sig, const siginfo_t* info, Writer* writer) {
  // A self-sent signal (the program dies of it on purpose: a shell or
  // `timeout` passing on its child's SIGINT) reaches this handler inside
  // the program's own kill() or raise(), so a process that never recorded
  // may say the run's line here; an asynchronous one may have interrupted
  // malloc, and then only the writer thread (when one runs) says it.
  const bool self_sent = info != nullptr && (info->si_code == SI_USER || info->si_code == SI_TKILL) &&
                         info->si_pid == getpid();
  if (!(self_sent && finish_unrecorded_before_signal_death()) && writer != nullptr) {
    writer->flush_for_handler(true, sig, kFinalFlushTimeoutMs);
  }
  die_of(sig);
}

// Runs the app's own handler `app` for `sig`, emulating SA_RESETHAND.
void call_app_handler(SignalState::Managed& managed, const struct sigaction& app, int sig, siginfo_t* info,
                      void* context) {
  if (app.sa_flags & SA_RESETHAND) {
    struct sigaction reset = app;
    reset.sa_handler = SIG_DFL;
    reset.sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
    set_app_action(managed, reset);
    struct sigaction real = real_action_for(reset);
    real_sigaction()(sig, &real, nullptr);
  }
  if (app.sa_flags & SA_SIGINFO) {
    app.sa_sigaction(sig, info, context);
  } else if (app.sa_handler != SIG_IGN && app.sa_handler != SIG_DFL) {
    app.sa_handler(sig);
  }
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  SignalState::Managed& managed = *managed_signal(sig);  // the handler is installed for these alone
  struct sigaction app = app_action_of(managed);
  Writer* writer = agent_state().writer.load(std::memory_order_acquire);

  if (is_crash(sig)) {
    // An app's handler of its own runs as before, unflushed: SIGSEGV is
    // routine in some programs (garbage collectors, guard pages).
    if (is_default(app)) {
      crash(sig, info, writer);
    } else {
      errno = saved_errno;
      call_app_handler(managed, app, sig, info, context);
    }
    errno = saved_errno;
    return;
  }

  if (!is_default(app) && writer != nullptr) {
    writer->flush_for_handler(false, sig, kCheckpointTimeoutMs);
    // The wait can be long (a backlog of records, a loaded machine), and
    // the app may have changed its disposition on another thread meanwhile:
    // CPython, exiting after a KeyboardInterrupt, sets SIGINT back to its
    // default and kills itself with it, its interpreter already torn down,
    // so a second SIGINT (`timeout` sends one to the child and one to its
    // process group) must not run the handler it withdrew. Act on the
    // disposition as it is now.
    app = app_action_of(managed);
  }
  if (is_default(app)) {
    finish_and_die_of(sig, info, writer);
  } else {
    errno = saved_errno;
    call_app_handler(managed, app, sig, info, context);
  }
  errno = saved_errno;
}

}  // namespace

void install_signal_handlers() {
  if (real_sigaction() == nullptr) return;
  for (size_t i = 0; i < std::size(kManagedSignals); ++i) {
    const int sig = kManagedSignals[i];
    struct sigaction current = {};
    if (real_sigaction()(sig, nullptr, &current) != 0 || !is_default(current)) continue;
    SignalState::Managed& managed = agent_state().signals.managed[i];
    set_app_action(managed, current);
    struct sigaction ours = real_action_for(current);
    if (real_sigaction()(sig, &ours, nullptr) == 0) managed.active.store(true, std::memory_order_release);
  }
}

}  // namespace prof

// ---- interposed libc functions (exported through the version script) ----

extern "C" [[gnu::visibility("default")]] int sigaction(int sig, const struct sigaction* act,
                                                        struct sigaction* old) {
  auto real = prof::real_sigaction();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (!prof::handled_by_agent(sig)) return real(sig, act, old);
  // The app sees and sets its own disposition; ours stays underneath.
  prof::SignalState::Managed& managed = *prof::managed_signal(sig);
  const struct sigaction previous = prof::app_action_of(managed);
  if (act != nullptr) {
    struct sigaction real_action = prof::real_action_for(*act);
    if (real(sig, &real_action, nullptr) != 0) return -1;
    prof::set_app_action(managed, *act);
  }
  if (old != nullptr) *old = previous;
  return 0;
}

extern "C" [[gnu::visibility("default")]] sighandler_t signal(int sig, sighandler_t handler) {
  if (!prof::handled_by_agent(sig)) {
    using SignalFunction = sighandler_t (*)(int, sighandler_t);
    static std::atomic<SignalFunction> cache{nullptr};  // constant-initialised: no guard
    SignalFunction real = prof::next_libc_definition(cache, "signal");
    if (real == nullptr) return SIG_ERR;
    return real(sig, handler);
  }
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // glibc's signal() has BSD semantics
  struct sigaction old = {};
  if (sigaction(sig, &action, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}
