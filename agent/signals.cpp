#include "signals.h"

#include <signal.h>

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "agent_state.h"
#include "process_exit.h"
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

void die_of(int sig) {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction()(sig, &dfl, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(sig);
}

void sleep_ms(uint32_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
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
      writer->wait_until_written(writer->request_flush(true, file::ProcessEnd::Reason::signal, sig),
                                 kCrashFlushTimeoutMs);
    }
  } else {
    // Another thread is writing: let it, for as long as it may take.
    sleep_ms(kCrashFlushTimeoutMs);
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction()(sig, &dfl, nullptr);
  const bool fault = info != nullptr && info->si_code > 0 && sig != SIGABRT;
  if (!fault) raise(sig);  // pending (blocked in this handler) until we return
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  SignalState::Managed& managed = *managed_signal(sig);  // the handler is installed for these alone
  const struct sigaction app = managed.app_action;
  Writer* writer = agent_state().writer.load(std::memory_order_acquire);

  if (is_crash(sig)) {
    // An app's handler of its own runs as before, unflushed: SIGSEGV is
    // routine in some programs (garbage collectors, guard pages).
    if (is_default(app)) {
      crash(sig, info, writer);
      errno = saved_errno;
      return;
    }
    errno = saved_errno;
    if (app.sa_flags & SA_RESETHAND) {
      managed.app_action.sa_handler = SIG_DFL;
      managed.app_action.sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
      struct sigaction real = real_action_for(managed.app_action);
      real_sigaction()(sig, &real, nullptr);
    }
    if (app.sa_flags & SA_SIGINFO) {
      app.sa_sigaction(sig, info, context);
    } else if (app.sa_handler != SIG_IGN && app.sa_handler != SIG_DFL) {
      app.sa_handler(sig);
    }
    return;
  }

  if (is_default(app)) {
    // A self-sent signal (the program dies of it on purpose: a shell or
    // `timeout` passing on its child's SIGINT) reaches this handler inside
    // the program's own kill() or raise(), so a process that never recorded
    // may say the run's line here; an asynchronous one may have interrupted
    // malloc, and then only the writer thread (when one runs) says it.
    const bool self_sent = info != nullptr && (info->si_code == SI_USER || info->si_code == SI_TKILL) &&
                           info->si_pid == getpid();
    if (!(self_sent && finish_unrecorded_before_signal_death()) && writer != nullptr) {
      writer->wait_until_written(writer->request_flush(true, file::ProcessEnd::Reason::signal, sig),
                                 kFinalFlushTimeoutMs);
    }
    die_of(sig);
    errno = saved_errno;
    return;
  }
  if (writer != nullptr) {
    writer->wait_until_written(writer->request_flush(false), kCheckpointTimeoutMs);
  }
  if (app.sa_flags & SA_RESETHAND) {
    managed.app_action.sa_handler = SIG_DFL;
    managed.app_action.sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
    struct sigaction real = real_action_for(managed.app_action);
    real_sigaction()(sig, &real, nullptr);
  }
  errno = saved_errno;
  if (app.sa_flags & SA_SIGINFO) {
    app.sa_sigaction(sig, info, context);
  } else if (app.sa_handler != SIG_IGN && app.sa_handler != SIG_DFL) {
    app.sa_handler(sig);
  }
}

}  // namespace

void install_signal_handlers() {
  if (real_sigaction() == nullptr) return;
  for (int sig : kManagedSignals) {
    struct sigaction current = {};
    if (real_sigaction()(sig, nullptr, &current) != 0 || !is_default(current)) continue;
    SignalState::Managed& managed = *managed_signal(sig);
    managed.app_action = current;
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
  const struct sigaction previous = managed.app_action;
  if (act != nullptr) {
    struct sigaction real_action = prof::real_action_for(*act);
    if (real(sig, &real_action, nullptr) != 0) return -1;
    managed.app_action = *act;
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
