#include "cli/report_command.h"

#include "cli/capture_paths.h"
#include "cli/driver_calls_note.h"
#include "cli/load_files.h"
#include "cli/prof_analyze.h"
#include "cli/report_file_by_file.h"
#include "model/range_tree.h"
#include "symbols/symbolizing_frame_namer.h"
#include "views/frame_names.h"
#include "views/key_average_cells.h"
#include "views/key_averages.h"
#include "views/module_tree.h"
#include "views/nsys_summary.h"
#include "views/sort_key.h"
#include "views/table_formatter.h"
#include "views/tensor_memory.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

std::string window_label(const RunWindow& w) {
  if (w.whole_run()) return "all";
  return w.index < 0 ? "merged" : std::to_string(w.index);
}

std::string window_json(const RunWindow& w) {
  std::string out = "\"window\":" + (w.index < 0 ? std::string("null") : std::to_string(w.index)) +
                    ",\"title\":" + json_string(w.title()) + ",\"whole_run\":" + (w.whole_run() ? "true" : "false") +
                    ",\"partial\":" + (w.partial ? "true" : "false") + ",\"steps\":[";
  for (size_t i = 0; i < w.steps.size(); ++i) out += (i ? "," : "") + std::to_string(w.steps[i]);
  return out + "]";
}

struct DropTotals {
  uint64_t agent = 0;
  uint64_t cupti = 0;
  uint64_t truncated = 0;
  uint64_t unterminated = 0;
};

DropTotals drop_totals(const std::vector<ProcessInfo>& processes) {
  DropTotals d;
  for (const ProcessInfo& p : processes) {
    if (p.drops) {
      d.agent += p.drops->ring_full;
      d.cupti += p.drops->cupti_records;
      d.truncated += p.drops->truncated_payloads;
    }
    d.unterminated += p.unterminated_ranges;
  }
  return d;
}

// Honesty footer of the text formats: what the numbers above are missing.
std::string drop_footer(const DropTotals& d) {
  std::string out;
  if (d.agent || d.cupti)
    out += "records dropped: " + std::to_string(d.agent) + " (agent buffers), " + std::to_string(d.cupti) + " (CUPTI)\n";
  if (d.truncated) out += "payloads truncated: " + std::to_string(d.truncated) + " (strings or stacks cut to fit a record)\n";
  if (d.unterminated)
    out += "unterminated NVTX ranges: " + std::to_string(d.unterminated) +
           " (still open when recording ended; their time runs to the end of the recording)\n";
  return out;
}

// One window's output, as its format wants it.
struct WindowOutput {
  ViewTable cells;
  std::string text;
  std::string totals_json;
};

void torch_table(std::vector<KeyAverage> rows, const ReportOptions& options, const TableOptions& table,
                 WindowOutput& output) {
  if (options.format == "table") {
    output.text = TableFormatter(table).format(std::move(rows));
  } else {
    const TableTotals totals = table_totals(rows);
    output.totals_json = ",\"self_cpu_time_total_ns\":" + std::to_string(totals.self_cpu_ns) +
                         ",\"self_cuda_time_total_ns\":" + std::to_string(totals.self_cuda_ns);
    output.cells = key_average_cells(select_rows(std::move(rows), table), totals);
  }
}

// Window `index` `w`: text, CSV rows or a JSON object added to `json`.
void write_window(size_t index, const RunWindow& w, const WindowOutput& output, const ReportOptions& options,
                  std::ostream& out, std::string& json) {
  if (options.format == "table") {
    if (index) out << '\n';
    if (!w.whole_run()) out << w.title() << '\n';
    out << output.text;
  } else if (options.format == "csv") {
    if (index == 0) out << csv_header(output.cells);
    out << csv_rows(output.cells, window_label(w));
  } else {
    json += std::string(index ? "," : "") + "{" + window_json(w) + output.totals_json +
            ",\"rows\":" + json_rows(output.cells) + "}";
  }
}

// After the windows: the drops footer, or the JSON document around them.
void write_end(const ReportOptions& options, const DropTotals& drops, const std::string& json, std::ostream& out) {
  if (options.format == "table") {
    out << drop_footer(drops);
  } else if (options.format == "json") {
    out << "{\"view\":" << json_string(options.view) << ",\"windows\":[" << json << "],\"drops\":{\"agent_buffers\":"
        << drops.agent << ",\"cupti\":" << drops.cupti << ",\"truncated_payloads\":" << drops.truncated
        << "},\"unterminated_ranges\":" << drops.unterminated << "}\n";
  }
}

TableOptions table_options(const ReportOptions& options) {
  TableOptions table;
  if (!options.sort_by.empty()) table.sort_by = options.sort_by;
  table.row_limit = options.row_limit;
  if (!options.time_unit.empty()) table.time_unit = parse_time_unit(options.time_unit).value_or(TimeUnit::kAuto);
  table.top_level_only = options.top_level_only;
  table.show_input_shapes = options.group_by_input_shape;
  table.show_stacks = options.group_by_stack_n > 0;
  return table;
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report", "torch key_averages().table() of NVTX ranges, CUDA API calls and GPU work, over all files");
  report->add_option("FILE", options.files, "capture files; several load into one run")->required();
  report->add_option("--sort-by", options.sort_by, "torch sort_by key (descending); default: first occurrence")
      ->check(CLI::IsMember(sort_key_names()));
  report->add_option("--row-limit", options.row_limit, "rows to print; -1: all, 0: none")->capture_default_str();
  report->add_option("--time-unit", options.time_unit, "print every time in this unit; default: per cell")
      ->check(CLI::IsMember({"s", "ms", "us"}));
  report->add_flag("--top-level-only", options.top_level_only, "only rows whose first event has no parent");
  report->add_flag("--group-by-input-shape", options.group_by_input_shape,
                   "rows per launch configuration (grid, block, shared memory) or transfer (kind, bytes)");
  report->add_option("--group-by-stack-n", options.group_by_stack_n,
                     "rows per N innermost frames of the API call's stack; adds Source Location")
      ->check(CLI::NonNegativeNumber);
  report->add_option("--view", options.view,
                     "table: torch's table; kernels|api|memcpy|nvtx: nsys stats summaries; modules: nn.Module tree; "
                     "memory: tensor memory over time, its peak and what held it")
      ->check(CLI::IsMember({"table", "kernels", "api", "memcpy", "nvtx", "modules", "memory"}))
      ->capture_default_str();
  report->add_option("--format", options.format, "table (text), csv (RFC 4180) or json (exact ns and bytes)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  report->add_flag("--driver-calls", options.driver_calls,
                   "driver calls made inside a runtime call as rows of their own (default: folded into it, as Kineto); "
                   "recorded under PROF_API=all");
  add_window_options(report, options.windows);
  report->add_flag("--merge-windows", options.merge_windows, "one table over all windows instead of one per window");
  return report;
}

int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<RunWindows> windows = RunWindows::from_options(options.windows, err);
  if (!windows) return kExitUsage;
  TableOptions table = table_options(options);
  // Function names from the modules' symbol tables; module+offset where none.
  const SymbolizingFrameNamer namer;
  GroupOptions group{options.group_by_input_shape, options.group_by_stack_n, &namer};
  group.fold_driver_calls = !options.driver_calls;

  // Several files' table in the memory of one (report_file_by_file.h),
  // when nothing in it needs them as one Run.
  std::vector<std::string> paths;
  if (!expand_capture_paths(options.files, paths, err)) return kExitBadInput;
  if (file_by_file_applies(options, paths.size())) {
    FileByFileTable file_by_file;
    switch (key_averages_file_by_file(paths, group, file_by_file, err)) {
      case FileByFileResult::kBadInput:
        return kExitBadInput;
      case FileByFileResult::kNeedsOneRun:
        break;
      case FileByFileResult::kDone: {
        if (options.driver_calls) note_nested_calls_not_recorded(file_by_file.processes, err);
        table.show_cuda_memory = file_by_file.cuda_memory;
        table.show_cpu_memory = file_by_file.cpu_memory;
        WindowOutput output;
        torch_table(std::move(file_by_file.rows), options, table, output);
        std::string json;
        write_window(0, RunWindow{}, output, options, out, json);
        write_end(options, drop_totals(file_by_file.processes), json, out);
        return kExitOk;
      }
    }
  }

  // torch's table reads the GPU records only as sums per name and per
  // launching call.
  LoadDepth depth = load_depth_for(options.view == "table", options.windows);
  Run run;
  if (!load_windowed_run(options.files, run, depth, *windows, options.merge_windows, err)) return kExitBadInput;
  if (options.driver_calls) note_nested_calls_not_recorded(run.processes, err);

  // Memory columns: when the run recorded memory of that kind at all, so
  // every window's table has the same columns.
  // Tensor memory is what torch's profile_memory shows: its columns appear
  // as torch's do with profile_memory on.
  for (const MemoryEvent& m : run.memory_events) (m.on_device ? table.show_cuda_memory : table.show_cpu_memory) = true;
  for (const TensorMemoryEvent& m : run.tensor_memory_events) (m.device >= 0 ? table.show_cuda_memory : table.show_cpu_memory) = true;
  const std::optional<NsysView> nsys = parse_nsys_view(options.view);
  const DropTotals drops = drop_totals(run.processes);

  std::string json;
  for (size_t i = 0; i < windows->windows().size(); ++i) {
    const RunWindow& w = windows->windows()[i];
    Run selected;
    const Run& events = windows->events_of(run, w, selected);
    WindowOutput output;
    if (options.view == "modules") {
      const RangeTree tree(events);
      const auto rows = module_tree(events, tree);
      if (options.format == "table") output.text = format_module_tree(rows, table.time_unit);
      else output.cells = module_tree_cells(rows);
    } else if (options.view == "memory") {
      const auto devices = tensor_memory(events);
      if (options.format == "table") {
        const size_t limit = options.row_limit < 0 ? SIZE_MAX : static_cast<size_t>(options.row_limit);
        output.text = format_tensor_memory(devices, 20, limit);
      } else {
        output.cells = tensor_memory_cells(devices);
      }
    } else if (nsys) {
      const auto rows = nsys_summary(events, *nsys);
      if (options.format == "table") output.text = format_nsys_summary(rows, *nsys);
      else output.cells = nsys_cells(rows, *nsys);
    } else {
      // Its threads walked on as many cores as the files were read on.
      torch_table(key_averages(events, group, load_jobs()), options, table, output);
    }
    write_window(i, w, output, options, out, json);
  }
  write_end(options, drops, json, out);
  return kExitOk;
}

}  // namespace prof::analyzer
