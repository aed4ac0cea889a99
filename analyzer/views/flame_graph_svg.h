#pragma once
// A self-contained interactive flame graph, as flamegraph.pl draws one, so
// nobody needs perl: one SVG file with an inline ECMAScript <script> and no
// external resource. Hover shows a frame's name, value and percent; click
// zooms into a frame (its ancestors stay, greyed, below it); "Reset Zoom"
// (or Escape) goes back; "Search" (or Ctrl-F, or '/') takes a regular
// expression, highlights the matching frames and shows the share of the
// total they cover.
//
// Frames are merged by name under the same parent and ordered by name
// (flamegraph.pl's rule), root at the bottom. Frames narrower than 0.1 px
// are left out, except the root-level ones, which are always drawn.
#include <ostream>
#include <string>
#include <vector>

#include "views/folded_stacks.h"

namespace prof::analyzer {

struct FlameGraphOptions {
  std::string title = "Flame Graph";
  std::string subtitle;           // e.g. the metric and the files
  std::string unit = "us";        // of the counts, for the hover text
  int width = 1200;               // pixels
};

// Draws the stacks (counts taken as write_folded_stacks rounds them).
void write_flame_graph_svg(const std::vector<FoldedStack>& stacks, const FlameGraphOptions& options, std::ostream& out);

}  // namespace prof::analyzer
