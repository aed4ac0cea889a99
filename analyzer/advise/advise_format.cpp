#include "advise/advise_format.h"

#include <cmath>
#include <cstdio>

#include "advise/findings.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

constexpr size_t kCauses = static_cast<size_t>(IdleCause::kCount);
constexpr size_t kStepRows = 10;
constexpr size_t kWidth = 100;

std::string pct(uint64_t part, uint64_t total) {
  if (total == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(total));
  return buf;
}

std::string one_decimal(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

bool is_unit(const std::string& word) {
  for (const char* unit : {"ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "GB/s", "us,", "ms,", "s,", "us;", "ms;",
                           "s;", "us)", "ms)", "B,", "B;", "B)", "MiB,", "GiB,", "KiB,", "us.", "ms."})
    if (word == unit) return true;
  return false;
}

// `text` wrapped at kWidth columns, each line after the first indented; a
// number and its unit stay on one line.
std::string wrap(const std::string& label, const std::string& text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!words.empty() && is_unit(word))
      words.back() += " " + word;
    else
      words.push_back(word);
    i = j + 1;
  }
  const std::string indent(3 + 10, ' ');
  std::string out = "   " + pad(label, 10);
  size_t column = out.size();
  bool first = true;
  for (const std::string& word : words) {
    if (!first && column + 1 + word.size() > kWidth) {
      out += "\n" + indent;
      column = indent.size();
      first = true;
    }
    if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

const char* cause_words(IdleCause cause) {
  switch (cause) {
    case IdleCause::kCopyWait: return "copy wait";
    case IdleCause::kSync: return "sync wait";
    case IdleCause::kAllocation: return "allocation calls";
    case IdleCause::kLaunchOverhead: return "launch overhead";
    case IdleCause::kOtherCalls: return "other CUDA calls";
    case IdleCause::kHostWork: return "host work";
    case IdleCause::kQueued: return "queued";
    default: return "no launch recorded";
  }
}

std::string process_label(const AdviseReport& r, uint32_t process) {
  if (process >= r.processes.size()) return "process " + std::to_string(process);
  const AdviseProcess& p = r.processes[process];
  return "pid " + std::to_string(p.pid) + (p.rank >= 0 ? " (rank " + std::to_string(p.rank) + ")" : "");
}

std::string site_text(const CallSite& s) {
  std::string out = s.api;
  if (!s.frames.empty()) {
    out += " at ";
    for (size_t i = 0; i < s.frames.size(); ++i) out += (i ? " <- " : "") + s.frames[i];
  } else {
    out += " (no call stack recorded)";
  }
  out += ": " + std::to_string(s.calls) + (s.calls == 1 ? " call" : " calls");
  if (s.cost_ns) out += ", " + advise_time(s.cost_ns);
  return out;
}

std::string usage_text(const Usage& u) {
  return "kernels " + pct(u.kernel_ns, u.span_ns) + ", copies " + pct(u.copy_ns, u.span_ns) + ", memsets " +
         pct(u.memset_ns, u.span_ns) + ", idle " + pct(u.idle_ns, u.span_ns);
}

void text_findings(const AdviseWindow& w, std::string& out) {
  if (w.findings.empty()) {
    out += "No problem found: no idle cause, copy, allocation, kernel or rank issue costs " +
           std::string("enough of the GPU span (--min-share) to report.\n");
    return;
  }
  out += "Findings, by the GPU time they cost\n";
  for (size_t i = 0; i < w.findings.size(); ++i) {
    const Finding& f = w.findings[i];
    out += std::to_string(i + 1) + ". [" + f.kind + "] " + f.title + "\n";
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", f.cost_pct);
    out += wrap("cost", f.cost_ns ? advise_time(f.cost_ns) + " (" + share + " of the GPU span)"
                                  : std::string("no time yet: a risk"));
    out += wrap("measured", f.measured);
    for (size_t s = 0; s < f.where.size(); ++s) out += wrap(s ? "" : "where", site_text(f.where[s]));
    out += wrap("why", f.why);
    out += wrap("usually", f.action);
  }
}

void text_details(const AdviseReport& r, const AdviseWindow& w, std::string& out) {
  out += "\nGPU time, from each device's first to last work\n";
  for (const DeviceUsage& d : w.devices) {
    out += "  " + process_label(r, d.process) + " GPU " + std::to_string(d.device) + ": " +
           advise_time(d.usage.span_ns) + ": " + usage_text(d.usage) + "\n";
    for (const StreamUsage& s : d.streams)
      out += "    stream " + std::to_string(s.stream) + ": " + usage_text(s.usage) + "\n";
    uint64_t no_kernel = 0;
    for (size_t c = 0; c < kCauses; ++c) no_kernel += d.idle_by_cause[c];
    std::string causes;
    for (size_t c = 0; c < kCauses; ++c)
      if (d.idle_by_cause[c])
        causes += std::string(causes.empty() ? "" : ", ") + cause_words(static_cast<IdleCause>(c)) + " " +
                  advise_time(d.idle_by_cause[c]);
    out += "    no kernel running: " + advise_time(no_kernel) + "\n";
    if (!causes.empty()) out += "      " + causes + "\n";
  }
  if (!w.steps.empty()) {
    out += "\nSteps (share of each step's time)\n";
    out += "  " + pad("process", 22) + pad("step", 6) + pad("duration", 12) + pad("kernels", 9) + pad("copies", 9) +
           pad("memsets", 9) + pad("idle", 9) + pad("queue", 7) + "allocs/frees\n";
    Usage total;
    for (size_t i = 0; i < w.steps.size(); ++i) {
      const StepUsage& s = w.steps[i];
      total.span_ns += s.usage.span_ns;
      total.kernel_ns += s.usage.kernel_ns;
      total.copy_ns += s.usage.copy_ns;
      total.memset_ns += s.usage.memset_ns;
      total.idle_ns += s.usage.idle_ns;
      if (i < kStepRows)
        out += "  " + pad(process_label(r, s.process), 22) + pad(std::to_string(s.step), 6) +
               pad(advise_time(s.duration_ns), 12) + pad(pct(s.usage.kernel_ns, s.usage.span_ns), 9) +
               pad(pct(s.usage.copy_ns, s.usage.span_ns), 9) + pad(pct(s.usage.memset_ns, s.usage.span_ns), 9) +
               pad(pct(s.usage.idle_ns, s.usage.span_ns), 9) + pad(one_decimal(s.mean_queue_depth), 7) +
               std::to_string(s.allocations) + "/" +
               std::to_string(s.frees) + "\n";
    }
    if (w.steps.size() > kStepRows)
      out += "  ... " + std::to_string(w.steps.size() - kStepRows) + " more (--format json lists every step)\n";
    out += "  " + pad("all steps", 28) + pad(advise_time(total.span_ns), 12) + pad(pct(total.kernel_ns, total.span_ns), 9) +
           pad(pct(total.copy_ns, total.span_ns), 9) + pad(pct(total.memset_ns, total.span_ns), 9) +
           pct(total.idle_ns, total.span_ns) + "\n";
  }
  if (!w.top_kernels.empty()) {
    out += "\nTop kernels\n  " + pad("share", 8) + pad("total", 12) + pad("count", 8) + "name\n";
    for (const KernelTotal& k : w.top_kernels)
      out += "  " + pad(pct(k.total_ns, w.kernel_total_ns), 8) + pad(advise_time(k.total_ns), 12) +
             pad(std::to_string(k.count), 8) + k.name + "\n";
  }
  if (!w.memory.empty()) {
    out += "\nDevice memory\n";
    for (const MemoryPeak& m : w.memory) {
      int64_t step_peak = -1;
      for (const StepUsage& s : w.steps)
        if (s.process == m.process) step_peak = std::max(step_peak, s.peak_memory_bytes);
      out += "  " + process_label(r, m.process) + " GPU " + std::to_string(m.device) + ": peak " +
             advise_bytes(m.peak_bytes) +
             (m.capacity_bytes ? " of " + advise_bytes(m.capacity_bytes) + " (" + pct(m.peak_bytes, m.capacity_bytes) + ")"
                               : std::string()) +
             (step_peak >= 0 ? "; in the steps up to " + advise_bytes(static_cast<uint64_t>(step_peak)) : std::string()) +
             "\n";
    }
  }
  if (!w.ranks.empty()) {
    out += "\nRanks (median step time)\n";
    for (const RankSteps& k : w.ranks)
      out += "  " + process_label(r, k.process) + ": " + advise_time(k.median_step_ns) + " (mean " +
             advise_time(k.mean_step_ns) + ") over " + std::to_string(k.steps) + " steps\n";
  }
}

// --- JSON
void key(std::string& out, const char* name) {
  out += '"';
  out += name;
  out += "\":";
}

std::string number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

void json_usage(std::string& out, const Usage& u) {
  out += "\"span_ns\":" + std::to_string(u.span_ns) + ",\"kernel_ns\":" + std::to_string(u.kernel_ns) +
         ",\"copy_ns\":" + std::to_string(u.copy_ns) + ",\"memset_ns\":" + std::to_string(u.memset_ns) +
         ",\"idle_ns\":" + std::to_string(u.idle_ns);
}

void json_causes(std::string& out, const uint64_t (&causes)[kCauses]) {
  out += "\"no_kernel\":{";
  for (size_t c = 0; c < kCauses; ++c)
    out += std::string(c ? "," : "") + "\"" + idle_cause_key(static_cast<IdleCause>(c)) + "_ns\":" +
           std::to_string(causes[c]);
  out += "}";
}

void json_finding(std::string& out, const Finding& f) {
  out += "{";
  key(out, "kind");
  append_json_string(out, f.kind);
  out += ",";
  key(out, "title");
  append_json_string(out, f.title);
  out += ",\"cost_ns\":" + std::to_string(f.cost_ns) + ",\"cost_pct\":" + number(std::round(f.cost_pct * 100) / 100) + ",";
  key(out, "measured");
  append_json_string(out, f.measured);
  out += ",";
  key(out, "why");
  append_json_string(out, f.why);
  out += ",";
  key(out, "action");
  append_json_string(out, f.action);
  out += ",\"where\":[";
  for (size_t i = 0; i < f.where.size(); ++i) {
    const CallSite& s = f.where[i];
    out += i ? ",{" : "{";
    key(out, "api");
    append_json_string(out, s.api);
    out += ",\"frames\":[";
    for (size_t j = 0; j < s.frames.size(); ++j) {
      if (j) out += ",";
      append_json_string(out, s.frames[j]);
    }
    out += "],\"calls\":" + std::to_string(s.calls) + ",\"cost_ns\":" + std::to_string(s.cost_ns) + "}";
  }
  out += "],\"metrics\":{";
  for (size_t i = 0; i < f.metrics.size(); ++i) {
    if (i) out += ",";
    append_json_string(out, f.metrics[i].key);
    out += ":";
    if (!f.metrics[i].text.empty())
      append_json_string(out, f.metrics[i].text);
    else
      out += number(f.metrics[i].number);
  }
  out += "}}";
}

void json_window(std::string& out, const AdviseReport& r, const AdviseReportWindow& rw) {
  const AdviseWindow& w = rw.result;
  out += "{\"window\":" + (rw.index < 0 ? std::string("null") : std::to_string(rw.index)) + ",";
  key(out, "title");
  append_json_string(out, rw.title);
  out += ",\"partial\":" + std::string(rw.partial ? "true" : "false") + ",\"steps\":[";
  for (size_t i = 0; i < rw.steps.size(); ++i) out += (i ? "," : "") + std::to_string(rw.steps[i]);
  out += "],\"step_time_ns\":" + std::to_string(w.step_time_ns) + ",\"gpu_span_ns\":" + std::to_string(w.gpu_span_ns) +
         ",\"findings\":[";
  for (size_t i = 0; i < w.findings.size(); ++i) {
    if (i) out += ",";
    json_finding(out, w.findings[i]);
  }
  out += "],\"devices\":[";
  for (size_t i = 0; i < w.devices.size(); ++i) {
    const DeviceUsage& d = w.devices[i];
    out += std::string(i ? "," : "") + "{\"pid\":" + std::to_string(r.processes[d.process].pid) +
           ",\"device\":" + std::to_string(d.device) + ",";
    json_usage(out, d.usage);
    out += ",";
    json_causes(out, d.idle_by_cause);
    out += ",\"streams\":[";
    for (size_t s = 0; s < d.streams.size(); ++s) {
      out += std::string(s ? "," : "") + "{\"stream\":" + std::to_string(d.streams[s].stream) + ",";
      json_usage(out, d.streams[s].usage);
      out += "}";
    }
    out += "]}";
  }
  out += "],\"step_usage\":[";
  for (size_t i = 0; i < w.steps.size(); ++i) {
    const StepUsage& s = w.steps[i];
    out += std::string(i ? "," : "") + "{\"pid\":" + std::to_string(r.processes[s.process].pid) +
           ",\"step\":" + std::to_string(s.step) + ",\"duration_ns\":" + std::to_string(s.duration_ns) + ",";
    json_usage(out, s.usage);
    out += ",";
    json_causes(out, s.idle_by_cause);
    out += ",\"allocations\":" + std::to_string(s.allocations) + ",\"frees\":" + std::to_string(s.frees) +
           ",\"allocated_bytes\":" + std::to_string(s.allocated_bytes) +
           ",\"mean_queue_depth\":" + number(std::round(s.mean_queue_depth * 100) / 100) +
           ",\"max_queue_depth\":" + std::to_string(s.max_queue_depth) + ",\"peak_memory_bytes\":" +
           (s.peak_memory_bytes < 0 ? std::string("null") : std::to_string(s.peak_memory_bytes)) + "}";
  }
  out += "],\"kernel_total_ns\":" + std::to_string(w.kernel_total_ns) + ",\"top_kernels\":[";
  for (size_t i = 0; i < w.top_kernels.size(); ++i) {
    const KernelTotal& k = w.top_kernels[i];
    out += i ? ",{" : "{";
    key(out, "name");
    append_json_string(out, k.name);
    out += ",\"count\":" + std::to_string(k.count) + ",\"total_ns\":" + std::to_string(k.total_ns) + "}";
  }
  out += "],\"memory\":[";
  for (size_t i = 0; i < w.memory.size(); ++i) {
    const MemoryPeak& m = w.memory[i];
    out += std::string(i ? "," : "") + "{\"pid\":" + std::to_string(r.processes[m.process].pid) +
           ",\"device\":" + std::to_string(m.device) + ",\"peak_bytes\":" + std::to_string(m.peak_bytes) +
           ",\"capacity_bytes\":" + (m.capacity_bytes ? std::to_string(m.capacity_bytes) : std::string("null")) + "}";
  }
  out += "],\"ranks\":[";
  for (size_t i = 0; i < w.ranks.size(); ++i) {
    const RankSteps& k = w.ranks[i];
    out += std::string(i ? "," : "") + "{\"pid\":" + std::to_string(r.processes[k.process].pid) +
           ",\"rank\":" + (k.rank >= 0 ? std::to_string(k.rank) : std::string("null")) +
           ",\"steps\":" + std::to_string(k.steps) + ",\"median_step_ns\":" + std::to_string(k.median_step_ns) +
           ",\"mean_step_ns\":" + std::to_string(k.mean_step_ns) + "}";
  }
  out += "]}";
}

}  // namespace

std::string advise_text(const AdviseReport& r) {
  std::string out;
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const AdviseReportWindow& rw = r.windows[i];
    if (i) out += "\n";
    out += rw.title + ": " +
           (r.step_rule.empty() ? std::string("no steps (the whole run)")
                                : std::to_string(rw.result.steps.size()) + " steps of " + r.step_rule) +
           (r.step_rule.empty() ? std::string() : ", " + advise_time(rw.result.step_time_ns) + " in steps") +
           "; the GPU span (first to last GPU work, summed over devices) " + advise_time(rw.result.gpu_span_ns) + "\n\n";
    text_findings(rw.result, out);
    text_details(r, rw.result, out);
  }
  return out;
}

std::string advise_json(const AdviseReport& r) {
  std::string out = "{\"schema\":\"profanalyze-advise/1\",";
  key(out, "step_rule");
  if (r.step_rule.empty())
    out += "null";
  else
    append_json_string(out, r.step_rule);
  out += ",\"steps\":" + std::to_string(r.step_count) + ",\"processes\":[";
  for (size_t i = 0; i < r.processes.size(); ++i)
    out += std::string(i ? "," : "") + "{\"pid\":" + std::to_string(r.processes[i].pid) + ",\"rank\":" +
           (r.processes[i].rank >= 0 ? std::to_string(r.processes[i].rank) : std::string("null")) + "}";
  out += "],\"windows\":[";
  for (size_t i = 0; i < r.windows.size(); ++i) {
    if (i) out += ",";
    json_window(out, r, r.windows[i]);
  }
  return out + "]}\n";
}

}  // namespace prof::analyzer
