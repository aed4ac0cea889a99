#pragma once
// `profanalyze advise FILE...`: the bottlenecks, found and explained
// (advise/advise.h), per window, as text or JSON.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "advise/advise_format.h"
#include "cli/window_options.h"
#include "views/frame_names.h"

namespace prof::analyzer {

struct AdviseOptions {
  std::vector<std::string> files;
  std::string format = "text";  // text | json
  bool no_symbols = false;      // frames as module+offset, no ELF or addr2line reads
  double min_share_pct = 3;     // findings costing less of the GPU span are left out
  WindowOptions windows;        // --step default: ProfilerStep ranges if any, else auto
};

CLI::App* add_advise_command(CLI::App& app, AdviseOptions& options);
int run_advise_command(const AdviseOptions& options, std::ostream& out, std::ostream& err);

// advise's findings and measurements of a loaded run, per window of
// `options.windows` (--step default as above), call sites named by `namer`:
// what `advise` prints and `html` draws. kExitOk, or the exit code after
// printing why (the options are wrong; a schedule found no steps).
// `all_steps`, when given, is select_steps of every step of `run` under the
// same step rule, made by the caller for itself (html's merged window): the
// "All steps" window reads it instead of selecting them again.
// `steps_found_in`, when given, is a RunWindows the caller resolved on `run`
// (RunWindows::resolve's `found_in`): its steps are taken over where its
// --step is advise's.
int make_advise_report(const Run& run, const AdviseOptions& options, const FrameNamer& namer, AdviseReport& report,
                       std::ostream& err, const Run* all_steps = nullptr,
                       RunWindows* steps_found_in = nullptr);
// ProfilerStep ranges when the run has them, else "auto".
std::string advise_default_step_rule(const Run& run);

}  // namespace prof::analyzer
