#include "cli/flame_graph_command.h"

#include "cli/output_file.h"
#include "cli/prof_analyze.h"
#include "views/flame_graph_svg.h"

namespace prof::analyzer {

CLI::App* add_flame_graph_command(CLI::App& app, FlameGraphCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "flamegraph", "the stacks of `stacks` as a self-contained interactive SVG (no flamegraph.pl needed)");
  add_stacks_options(command, options.stacks);
  command->add_option("-o,--output", options.output, "SVG file to write; - for stdout")->capture_default_str();
  command->add_option("--title", options.title, "title line; default: Flame Graph: METRIC");
  command->add_option("--width", options.width, "image width in pixels")
      ->check(CLI::Range(200, 100000))
      ->capture_default_str();
  return command;
}

int run_flame_graph_command(const FlameGraphCommandOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<FoldedStack> stacks;
  if (const int code = collect_folded_stacks(options.stacks, stacks, err); code != kExitOk) return code;
  FlameGraphOptions svg;
  svg.title = options.title.empty() ? "Flame Graph: " + options.stacks.metric : options.title;
  for (const std::string& f : options.stacks.files) svg.subtitle += (svg.subtitle.empty() ? "" : ", ") + f;
  svg.width = options.width;
  return write_output(options.output, [&](std::ostream& to) { write_flame_graph_svg(stacks, svg, to); }, out, err);
}

}  // namespace prof::analyzer
