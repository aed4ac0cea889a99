#include "config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace prof {
namespace {

// The PROF_ variables of libc's environ, found in one pass when the
// configuration is read. It asks for some 25 of them, and a getenv for each
// scanned the whole environment (8,000 of the instructions of the start of
// every process under LD_PRELOAD, callgrind, issue #30). Read as env_value
// reads the environment (common/environment.h), not through the program's
// getenv.
class ProfVariables {
 public:
  ProfVariables() {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      if (**entry == 'P' && strncmp(*entry, "PROF_", 5) == 0) entries_.push_back(*entry);
    }
  }

  // The value of `name` (PROF_...), or nullptr.
  const char* operator[](const char* name) const {
    const size_t length = strlen(name);
    for (const char* entry : entries_) {
      if (strncmp(entry, name, length) == 0 && entry[length] == '=') return entry + length + 1;
    }
    return nullptr;
  }

 private:
  std::vector<const char*> entries_;
};

int first_int_env(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    errno = 0;
    long parsed = strtol(value, &end, 10);
    if (errno == 0 && *end == '\0' && parsed >= 0 && parsed < (1L << 30)) {
      return static_cast<int>(parsed);
    }
  }
  return -1;
}

// A variable that takes one of a few words, each standing for a value (the
// option's one table, common/option_words.h): unset or empty leaves `value`
// as it is; an unknown word is said once and leaves it too.
template <typename T, size_t N>
void choice_env(const ProfVariables& variables, const char* name, const OptionWord<T> (&choices)[N], T& value) {
  const char* text = variables[name];
  if (text == nullptr || *text == '\0') return;
  if (value_of(choices, text, value)) return;
  std::string words;
  for (size_t i = 0; i < N; ++i) {
    words += i == 0 ? "" : i + 1 == N ? " or " : ", ";
    words += choices[i].word;
  }
  log_error("%s=%s is not %s; using %s", name, text, words.c_str(), word_of(choices, value));
}

// Parses a positive integer variable within [min, max]; otherwise the default.
uint64_t bounded_env(const ProfVariables& variables, const char* name, uint64_t fallback, uint64_t min,
                     uint64_t max) {
  const char* value = variables[name];
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long long parsed = strtoull(value, &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min || parsed > max) {
    log_error("%s=%s is not a number in [%llu, %llu]; using %llu", name, value,
              static_cast<unsigned long long>(min), static_cast<unsigned long long>(max),
              static_cast<unsigned long long>(fallback));
    return fallback;
  }
  return parsed;
}


// Seconds, possibly fractional, as nanoseconds; 0 when unset or invalid.
// A number too large is out of range, not "not a number": it is held at
// the largest (PROF_DELAY=99999999999999999999 records nothing for 115
// days, as asked, rather than everything at once).
uint64_t seconds_env(const ProfVariables& variables, const char* name) {
  constexpr double kMaxSeconds = 1e7;
  const char* value = variables[name];
  if (value == nullptr || *value == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const double seconds = strtod(value, &end);
  if (*end == '\0' && seconds > kMaxSeconds) {  // ERANGE too (1e999)
    log_error("%s=%s is out of range (at most %.0f seconds); using %.0f", name, value, kMaxSeconds, kMaxSeconds);
    return static_cast<uint64_t>(kMaxSeconds * 1e9);
  }
  if (errno != 0 || *end != '\0' || !(seconds >= 0)) {
    log_error("%s=%s is not a number of seconds; ignored", name, value);
    return 0;
  }
  return static_cast<uint64_t>(seconds * 1e9);
}

}  // namespace

std::optional<Schedule> parse_schedule(const std::string& text, std::string& error) {
  Schedule schedule;
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(at, comma - at);
    at = comma + 1;
    if (item.empty()) continue;
    const size_t equals = item.find('=');
    const std::string key = item.substr(0, equals);
    char* end = nullptr;
    const char* number = equals == std::string::npos ? "" : item.c_str() + equals + 1;
    errno = 0;
    const long long value = strtoll(number, &end, 10);
    if (equals == std::string::npos || *number == '\0' || *end != '\0' || errno != 0) {
      error = "'" + item + "' is not NAME=NUMBER";
      return std::nullopt;
    }
    if (key == "skip_first") schedule.skip_first = value;
    else if (key == "wait") schedule.wait = value;
    else if (key == "warmup") schedule.warmup = value;
    else if (key == "active") schedule.active = value;
    else if (key == "repeat") schedule.repeat = value;
    else {
      error = "'" + key + "' is not skip_first, wait, warmup, active or repeat";
      return std::nullopt;
    }
  }
  if (schedule.active <= 0) {
    error = "active must be greater than 0";
    return std::nullopt;
  }
  if (schedule.skip_first < 0 || schedule.wait < 0 || schedule.warmup < 0 || schedule.repeat < 0) {
    error = "skip_first, wait, warmup and repeat must not be negative";
    return std::nullopt;
  }
  return schedule;
}

ProcessIdentity read_process_identity() {
  ProcessIdentity identity;
  identity.pid = static_cast<uint32_t>(getpid());
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) identity.hostname = host;
  identity.rank = first_int_env({"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"});
  identity.world_size =
      first_int_env({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"});
  return identity;
}

std::string expand_output_template(const std::string& pattern, const ProcessIdentity& identity) {
  std::string out;
  out.reserve(pattern.size() + 16);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'p': out += std::to_string(identity.pid); break;
      case 'h': out += identity.hostname; break;
      case 'r': out += std::to_string(identity.rank < 0 ? 0 : identity.rank); break;
      case '%': out += '%'; break;
      default:  // not ours: keep it as written
        out += '%';
        out += pattern[i];
    }
  }
  return out;
}

std::string disambiguate_for_child(const std::string& path, uint32_t pid) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  const std::string suffix = std::string(".").append(std::to_string(pid));
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1)) {
    return path + suffix;
  }
  return path.substr(0, dot) + suffix + path.substr(dot);
}

std::optional<uint32_t> parse_torch_parts(const std::string& text, std::string& error) {
  if (text.empty()) return kTorchAll;
  if (text == "off") return 0;
  static constexpr std::pair<const char*, TorchPart> kParts[] = {
      {"ops", kTorchOps}, {"modules", kTorchModules}, {"steps", kTorchSteps}, {"memory", kTorchMemory}};
  uint32_t parts = 0;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string word = text.substr(begin, end - begin);
    bool known = false;
    for (const auto& [name, part] : kParts) {
      if (word == name) {
        parts |= part;
        known = true;
      }
    }
    if (!known) {
      error = "'" + word + "' is not ops, modules, steps or memory";
      return std::nullopt;
    }
    begin = end + 1;
  }
  return parts;
}

std::string torch_parts_name(uint32_t parts) {
  std::string name;
  for (const auto& [word, part] : {std::pair{"ops", kTorchOps}, std::pair{"modules", kTorchModules},
                                   std::pair{"steps", kTorchSteps}, std::pair{"memory", kTorchMemory}}) {
    if ((parts & part) == 0) continue;
    if (!name.empty()) name += ',';
    name += word;
  }
  return name.empty() ? "off" : name;
}

AgentConfig read_config(const ProcessIdentity& identity) {
  const ProfVariables variables;
  AgentConfig config;
  choice_env(variables, "PROF_LOG", kLogLevelWords, config.log_level);
  set_log_level(config.log_level);

  const char* output = variables["PROF_OUTPUT"];
  std::string pattern = (output != nullptr && *output != '\0') ? output : "run.pb";
  config.output_path = expand_output_template(pattern, identity);

  config.thread_buffer_bytes =
      bounded_env(variables, "PROF_BUFFER_KB", config.thread_buffer_bytes >> 10, 64, 1u << 20) << 10;
  config.flush_interval_ms =
      static_cast<uint32_t>(bounded_env(variables, "PROF_FLUSH_MS", config.flush_interval_ms, 10, 60'000));
  config.ring_wait_ms =
      static_cast<uint32_t>(bounded_env(variables, "PROF_RING_WAIT_MS", config.ring_wait_ms, 0, 10'000));

  choice_env(variables, "PROF_API", kApiCallWords, config.cuda.all_api_calls);
  choice_env(variables, "PROF_STACKS", kStackModeWords, config.cuda.stacks);
  config.cuda.stack_depth =
      static_cast<uint32_t>(bounded_env(variables, "PROF_STACK_DEPTH", config.cuda.stack_depth, 1, 128));
  choice_env(variables, "PROF_CAPTURE", kCaptureRangeWords, config.cuda.range);
  choice_env(variables, "PROF_BACKEND", kCaptureBackendWords, config.cuda.backend);
  choice_env(variables, "PROF_GPU_TIMING", kGpuTimingWords, config.cuda.gpu_timing);
  choice_env(variables, "PROF_CUPTI_DETACH", kOffOnDigitWords, config.cuda.detach_between_windows);
  choice_env(variables, "PROF_FOLLOW_FORK", kOffOnDigitWords, config.follow_fork);
  choice_env(variables, "PROF_CLOCK", kClockWords, config.clock);

  std::string error;
  const char* step = variables["PROF_STEP"];
  if (step != nullptr && *step != '\0') {
    config.windows.step_rule = StepRule::parse(step, error);
    if (!config.windows.step_rule) log_error("PROF_STEP=%s %s; steps are not counted", step, error.c_str());
  }
  const char* schedule = variables["PROF_SCHEDULE"];
  if (schedule != nullptr && *schedule != '\0') {
    if (!config.windows.step_rule) {
      log_error("PROF_SCHEDULE needs PROF_STEP (which steps to count); recording everything");
    } else {
      config.windows.schedule = parse_schedule(schedule, error);
      if (!config.windows.schedule) log_error("PROF_SCHEDULE=%s: %s; recording everything", schedule, error.c_str());
    }
  }
  config.windows.delay_ns = seconds_env(variables, "PROF_DELAY");
  config.windows.duration_ns = seconds_env(variables, "PROF_DURATION");
  choice_env(variables, "PROF_START", kStartOffWords, config.windows.start_off);
  config.keep = static_cast<uint32_t>(bounded_env(variables, "PROF_KEEP", 0, 0, 1u << 20));
  config.max_bytes = bounded_env(variables, "PROF_MAX_MB", 0, 0, 1u << 30) << 20;
  config.window_wait_ms = static_cast<uint32_t>(bounded_env(variables, "PROF_WINDOW_WAIT_MS", 2000, 0, 600000));
  if (const char* torch = variables["PROF_TORCH"]; torch != nullptr) {
    const std::optional<uint32_t> parts = parse_torch_parts(torch, error);
    if (parts) {
      config.torch.parts = *parts;
    } else {
      log_error("PROF_TORCH=%s: %s; using all", torch, error.c_str());
    }
  }
  choice_env(variables, "PROF_TORCH_SHAPES", kOffOnDigitWords, config.torch.shapes);
  return config;
}

}  // namespace prof
