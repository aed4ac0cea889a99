#include "views/info_view.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "io/capture_reader.h"
#include "views/time_format.h"

namespace prof::analyzer {
namespace {

// Label column 14 wide so values line up.
void field(std::ostringstream& out, const char* label, const std::string& value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "  %-14s", label);
  out << buf << value << '\n';
}

void count(std::ostringstream& out, const char* label, uint64_t value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "    %-20s%12llu", label, static_cast<unsigned long long>(value));
  out << buf << '\n';
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

const char* cut_by(const std::string& trigger) {
  if (trigger == "schedule") return "schedule (PROF_STEP + PROF_SCHEDULE)";
  if (trigger == "duration") return "duration (PROF_DELAY / PROF_DURATION)";
  if (trigger == "on_demand") return "capture (profanalyze capture)";
  return nullptr;
}

// The capture window a window file holds: which one, how it was cut, its
// steps (numbered as the agent counted them from the process's start).
void format_window(std::ostringstream& out, const recorded::Window& w) {
  const char* how = cut_by(w.trigger);
  field(out, "window", std::to_string(w.index) + ", cut by " + (how ? how : w.trigger.c_str()) +
                           (w.partial ? "; partial: the process ended inside it" : ""));
  if (w.first_step < 0) {
    field(out, "steps", "none counted (cut by time)");
  } else if (w.last_step < 0) {
    field(out, "steps", "from " + std::to_string(w.first_step) + " (the process ended inside the window)");
  } else {
    const int64_t last = w.last_step;
    std::string numbers;
    if (last - w.first_step < 16) {
      for (int64_t s = w.first_step; s <= last; ++s) numbers += (s == w.first_step ? "" : ", ") + std::to_string(s);
    } else {
      numbers = std::to_string(w.first_step) + " to " + std::to_string(last);
    }
    field(out, "steps", std::to_string(last - w.first_step + 1) + ": " + numbers);
  }
  if (!w.step_rule.empty()) field(out, "step rule", w.step_rule);
  field(out, "span", format_time_ns(w.end_ns - w.start_ns) + " (" + std::to_string(w.start_ns) + " to " +
                                std::to_string(w.end_ns) + " ns)");
  if (w.gpu_records_missing != 0) {
    field(out, "GPU missing", std::to_string(w.gpu_records_missing) +
                                  " launches of the window have no GPU record (CUPTI had not handed them over)");
  }
}

void format_process(std::ostringstream& out, const ProcessInfo& p) {
  out << p.path << '\n';
  field(out, "format", std::to_string(p.format_major) + "." + std::to_string(p.format_minor) +
                           (p.producer.empty() ? "" : ", written by " + p.producer) +
                           (p.format_minor > CaptureReader::kKnownFormatMinor
                                ? " (newer than this profanalyze, which reads " + std::to_string(p.format_major) +
                                      "." + std::to_string(CaptureReader::kKnownFormatMinor) + ")"
                                : ""));
  if (p.window) format_window(out, *p.window);
  if (p.process) {
    const auto& proc = *p.process;
    field(out, "pid", std::to_string(proc.pid) + " (parent " + std::to_string(proc.parent_pid) + ")");
    field(out, "host", proc.hostname);
    field(out, "executable", proc.executable);
    field(out, "command line", joined(proc.command_line));
    field(out, "rank", proc.rank < 0 ? std::string("none")
                                       : std::to_string(proc.rank) + " of " + std::to_string(proc.world_size));
  } else {
    field(out, "process", "not recorded (no Process record in the file)");
  }

  const bool any_event = p.last_event_ns != 0 || (p.process && p.process->start_ns != 0);
  std::string duration = any_event ? format_time_ns(p.end_ns() - p.start_ns()) + " (" + std::to_string(p.start_ns()) +
                                        " to " + std::to_string(p.end_ns()) + " ns)"
                                  : std::string("no events");
  field(out, "duration", duration);
  std::string ended;
  if (p.end) {
    switch (p.end->reason) {
      case ProcessEndReason::kExit: ended = "exit"; break;
      case ProcessEndReason::kSignal: ended = "signal " + std::to_string(p.end->signal); break;
      default: ended = "unspecified reason"; break;
    }
  } else if (p.window) {
    ended = "still running when its window ended";
  } else {
    ended = "cut short: no ProcessEnd, duration runs to the last recorded event";
  }
  field(out, "ended", ended);
  if (p.end && p.end->gpu_records_missing != 0) {
    field(out, "GPU missing", std::to_string(p.end->gpu_records_missing) +
                                  " launches have no GPU record (still running when recording ended)");
  }
  field(out, "chunks", std::to_string(p.chunks) + (p.last_chunk_truncated ? " (last chunk truncated, skipped)" : ""));

  field(out, "threads", std::to_string(p.threads.size()));
  for (const auto& [tid, name] : p.threads) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "    %-10u", tid);
    out << buf << name << '\n';
  }

  out << "  records\n";
  const RecordCounts& c = p.counts;
  count(out, "API calls", c.api_calls);
  count(out, "kernels", c.kernels);
  count(out, "memcpys", c.memcpys);
  count(out, "memsets", c.memsets);
  count(out, "memory events", c.memory_events);
  count(out, "synchronizations", c.synchronizations);
  count(out, "NVTX ranges", c.nvtx_ranges);
  count(out, "NVTX marks", c.nvtx_marks);
  count(out, "overheads", c.overheads);
  count(out, "stacks", c.stacks);
  count(out, "frames", c.frames);
  count(out, "modules", c.modules);
  count(out, "strings", c.strings);

  // Which interception saw the API calls, and what timed the GPU work.
  out << "  captured by\n";
  count(out, "API calls, CUPTI", c.api_calls - c.api_calls_by_hooks);
  count(out, "API calls, hooks", c.api_calls_by_hooks);
  const uint64_t gpu_records = c.kernels + c.memcpys + c.memsets;
  count(out, "GPU work, CUPTI", gpu_records - c.event_timed);
  count(out, "GPU work, events", c.event_timed);

  if (p.drops) {
    out << "  drops\n";
    count(out, "ring_full", p.drops->ring_full);
    count(out, "cupti_records", p.drops->cupti_records);
    count(out, "truncated_payloads", p.drops->truncated_payloads);
  } else {
    field(out, "drops", "not recorded");
  }

  if (p.process && !p.process->options.empty()) {
    out << "  options\n";
    for (const auto& [key, value] : p.process->options) out << "    " << key << " = " << value << '\n';
  } else {
    field(out, "options", "none recorded");
  }
}

}  // namespace

std::string format_info(const Run& run) {
  std::ostringstream out;
  for (size_t i = 0; i < run.processes.size(); ++i) {
    if (i) out << '\n';
    format_process(out, run.processes[i]);
  }
  return out.str();
}

}  // namespace prof::analyzer
