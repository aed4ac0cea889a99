#pragma once
// `profanalyze html FILE... -o report.html`: one self-contained page
// (views/html_page.h) with the overview (steps, GPU utilisation, run facts,
// advise's findings), the report table per window, the kernels summary,
// memory over time, the flamegraphs and the ranks.

#include <ostream>
#include <string>
#include <vector>

#include "cli/window_options.h"

namespace CLI {
class App;
}

namespace prof::analyzer {

struct HtmlOptions {
  std::vector<std::string> files;
  std::string output = "report.html";  // "-": stdout
  bool no_symbols = false;
  WindowOptions windows;  // --step default: ProfilerStep ranges if any, else auto
};

CLI::App* add_html_command(CLI::App& app, HtmlOptions& options);
int run_html_command(const HtmlOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
