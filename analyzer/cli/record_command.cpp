#include "cli/record_command.h"

#include <glob.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "cli/prof_analyze.h"
#include "cli/report_command.h"

namespace prof::analyzer {
namespace {

// The agent's default PROF_OUTPUT (agent/config.cpp).
constexpr const char* kDefaultOutput = "run.pb";

std::string self_executable() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return {};
  return std::string(path, static_cast<size_t>(length));
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The agent beside this program: <prefix>/bin/profanalyze finds
// <prefix>/lib/libprof.so, and the build tree's build/analyzer/profanalyze
// finds build/lib/libprof.so, so an installed prefix can be moved anywhere.
std::string agent_beside_self() {
  const std::string exe = self_executable();
  if (exe.empty()) return {};
  return directory_of(directory_of(exe)) + "/lib/libprof.so";
}

// How to call this program in the printed hints: plain `profanalyze` when
// that name on PATH is this very file, else its full path.
std::string self_command() {
  const std::string exe = self_executable();
  const char* path = getenv("PATH");
  if (path == nullptr || exe.empty()) return exe.empty() ? "profanalyze" : exe;
  std::string directories = path;
  size_t start = 0;
  while (start <= directories.size()) {
    const size_t colon = std::min(directories.find(':', start), directories.size());
    const std::string candidate = directories.substr(start, colon - start) + "/profanalyze";
    char resolved[4096];
    if (realpath(candidate.c_str(), resolved) != nullptr) return exe == resolved ? "profanalyze" : exe;
    start = colon + 1;
  }
  return exe;
}

std::string shell_quoted(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || strchr("/._-+,:=%@", c) != nullptr;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The files a run may have written for output pattern PATTERN: the file
// itself, window files (run.step6.pb) and other processes' files
// (run.1234.pb), with %p/%h/%r matched by anything. Only files modified
// since the program started count, so an older run.pb is not reported.
std::vector<std::string> files_written(const std::string& pattern, time_t started) {
  std::string as_glob;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      as_glob += pattern[i + 1] == '%' ? "%" : "*";
      ++i;
    } else if (strchr("*?[\\", pattern[i]) != nullptr) {
      as_glob += std::string("\\") + pattern[i];
    } else {
      as_glob += pattern[i];
    }
  }
  const size_t slash = as_glob.rfind('/');
  const size_t dot = as_glob.rfind('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  const std::string stem = has_extension ? as_glob.substr(0, dot) : as_glob;
  const std::string extension = has_extension ? as_glob.substr(dot) : "";

  std::vector<std::string> found;
  for (const std::string& candidates : {as_glob, stem + ".*" + extension}) {
    glob_t matches{};
    if (glob(candidates.c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        struct stat info {};
        const std::string file = matches.gl_pathv[i];
        if (stat(file.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_mtime >= started &&
            std::find(found.begin(), found.end(), file) == found.end()) {
          found.push_back(file);
        }
      }
    }
    globfree(&matches);
  }
  return found;
}

void set_variable(const char* name, const std::string& value) {
  if (!value.empty()) setenv(name, value.c_str(), 1);
}

// The program's environment: ours, plus the agent and the options.
void prepare_environment(const RecordOptions& options, const std::string& agent) {
  const char* preload = getenv("LD_PRELOAD");
  set_variable("LD_PRELOAD", preload != nullptr && *preload != '\0' ? agent + ":" + preload : agent);
  set_variable("PROF_OUTPUT", options.output);
  set_variable("PROF_SCHEDULE", options.schedule);
  set_variable("PROF_STEP", options.step);
  set_variable("PROF_STACKS", options.stacks);
  set_variable("PROF_BACKEND", options.backend);
}

volatile sig_atomic_t running_child = 0;

// A signal sent to profanalyze alone (kill PID, timeout, a job scheduler)
// goes on to the program. One the terminal sent (Ctrl-C) reached the whole
// foreground process group, the program included, so it is not sent twice.
void forward_signal(int signal_number, siginfo_t* info, void*) {
  const bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  const bool from_child = info != nullptr && info->si_pid == running_child;
  if (running_child > 0 && !from_terminal && !from_child) kill(running_child, signal_number);
}

constexpr int kForwardedSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGCONT, SIGWINCH};
constexpr size_t kForwardedCount = sizeof(kForwardedSignals) / sizeof(kForwardedSignals[0]);

// The dispositions profanalyze was started with, which the program gets
// as it would without profanalyze (a signal ignored by `nohup` or by a
// shell's background job stays ignored, and is not forwarded).
struct SignalDispositions {
  struct sigaction original[kForwardedCount];
};

SignalDispositions forward_signals_to_child() {
  SignalDispositions saved{};
  struct sigaction action {};
  action.sa_sigaction = forward_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < kForwardedCount; ++i) {
    sigaction(kForwardedSignals[i], nullptr, &saved.original[i]);
    if (saved.original[i].sa_handler != SIG_IGN) sigaction(kForwardedSignals[i], &action, nullptr);
  }
  return saved;
}

void restore_signals(const SignalDispositions& saved) {
  for (size_t i = 0; i < kForwardedCount; ++i) sigaction(kForwardedSignals[i], &saved.original[i], nullptr);
}

// Dies of SIGNAL_NUMBER as the program did, without a second core file.
[[noreturn]] void die_of(int signal_number) {
  const struct rlimit no_core {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(signal_number, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal_number);
  _exit(128 + signal_number);  // a signal whose default is to be ignored
}

}  // namespace

CLI::App* add_record_command(CLI::App& app, RecordOptions& options) {
  CLI::App* record = app.add_subcommand(
      "record", "Run a program with libprof.so preloaded and record it: profanalyze record [options] -- ./app args");
  record->add_option("-o,--output", options.output,
                     "the capture file (PROF_OUTPUT; default run.pb; %p pid, %h host, %r rank)");
  record->add_option("--schedule", options.schedule,
                     "record windows of steps, as torch.profiler.schedule: wait=1,warmup=1,active=3[,repeat=N,skip_first=N] "
                     "(PROF_SCHEDULE; needs --step)");
  record->add_option("--step", options.step,
                     "where steps begin: nvtx:REGEX, kernel:REGEX or api:NAME (PROF_STEP), e.g. 'nvtx:^ProfilerStep#'");
  record->add_option("--stacks", options.stacks, "call stacks: native, python, mixed or none (PROF_STACKS)")
      ->check(CLI::IsMember({"native", "python", "mixed", "none"}));
  record->add_option("--backend", options.backend, "who records CUDA calls: auto, cupti or hooks (PROF_BACKEND)")
      ->check(CLI::IsMember({"auto", "cupti", "hooks"}));
  record->add_option("--agent", options.agent, "the libprof.so to preload (default: ../lib/libprof.so beside profanalyze)");
  record->add_flag("--report", options.report, "print the report of what was written when the program ends");
  record->add_option("COMMAND", options.command, "the program and its arguments, after --")->required();
  return record;
}

int run_record_command(const RecordOptions& options, std::ostream& out, std::ostream& err) {
  if (!options.schedule.empty() && options.step.empty() && getenv("PROF_STEP") == nullptr) {
    err << "profanalyze record: --schedule needs --step (where steps begin), e.g. --step 'nvtx:^ProfilerStep#' "
           "for torch.profiler's steps, or --step 'nvtx:^step'\n";
    return kExitUsage;
  }
  const std::string agent = options.agent.empty() ? agent_beside_self() : options.agent;
  if (!is_file(agent)) {
    err << "profanalyze record: no agent at " << agent
        << " (profanalyze looks for ../lib/libprof.so beside itself; give --agent PATH)\n";
    return kExitUsage;
  }
  std::string output = options.output;
  if (output.empty()) output = getenv("PROF_OUTPUT") != nullptr ? getenv("PROF_OUTPUT") : kDefaultOutput;

  out.flush();
  err.flush();
  const time_t started = time(nullptr);
  // Held back until the child's pid is known to the handler, then forwarded.
  sigset_t forwarded;
  sigset_t before;
  sigemptyset(&forwarded);
  for (int signal_number : kForwardedSignals) sigaddset(&forwarded, signal_number);
  sigprocmask(SIG_BLOCK, &forwarded, &before);
  const SignalDispositions dispositions = forward_signals_to_child();
  const pid_t child = fork();
  if (child < 0) {
    err << "profanalyze record: cannot start a process: " << strerror(errno) << "\n";
    restore_signals(dispositions);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    return kExitBadInput;
  }
  if (child == 0) {
    restore_signals(dispositions);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    prepare_environment(options, agent);
    std::vector<char*> argv;
    for (const std::string& word : options.command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int exec_error = errno;
    // A shell's codes: 127 not found, 126 found but not runnable.
    const std::string message =
        "profanalyze record: cannot run " + options.command[0] + ": " + strerror(exec_error) + "\n";
    [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, message.data(), message.size());
    _exit(exec_error == ENOENT ? 127 : 126);
  }
  running_child = child;
  sigprocmask(SIG_SETMASK, &before, nullptr);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  running_child = 0;
  restore_signals(dispositions);

  if (WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126) &&
      files_written(output, started).empty()) {
    return WEXITSTATUS(status);  // not started: the child said why
  }
  std::string how_it_ended;
  if (WIFSIGNALED(status)) {
    how_it_ended = std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                   strsignal(WTERMSIG(status)) + ")";
  } else if (WEXITSTATUS(status) != 0) {
    how_it_ended = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (!how_it_ended.empty()) err << "profanalyze record: " << options.command[0] << " " << how_it_ended << "\n";

  const std::vector<std::string> files = files_written(output, started);
  if (files.empty()) {
    err << "profanalyze record: no capture file was written (" << output
        << "): the program made no CUDA call or NVTX range the agent records, or the agent did not load"
        << " (its libprof: lines on stderr say why)\n";
  } else {
    const std::string command = self_command();
    std::string file_list;
    for (const std::string& file : files) file_list += " " + shell_quoted(file);
    err << "profanalyze record: wrote" << file_list << "\n"
        << "next:\n"
        << "  " << command << " report" << file_list << "        # torch.profiler's key_averages table\n"
        << "  " << command << " advise" << file_list << "        # what limits the GPU, with the call sites\n"
        << "  " << command << " flamegraph -o flame.svg" << file_list << "\n"
        << "  " << command << " html -o run.html" << file_list << "\n";
  }
  if (options.report && !files.empty()) {
    ReportOptions report;
    report.files = files;
    const int report_status = run_report_command(report, out, err);
    if (report_status != kExitOk) err << "profanalyze record: the report failed (status " << report_status << ")\n";
  }
  out.flush();
  err.flush();
  if (WIFSIGNALED(status)) die_of(WTERMSIG(status));
  return WEXITSTATUS(status);
}

}  // namespace prof::analyzer
