#include "views/flame_graph_svg.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "views/folded_stacks.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

constexpr int kFrameHeight = 16;
constexpr int kFontSize = 12;
constexpr double kFontWidth = 0.59;  // average glyph width / font size (Verdana)
constexpr int kPadX = 10;
constexpr int kPadTop = kFontSize * 3;
constexpr int kPadBottom = kFontSize * 2 + 10;
constexpr double kMinWidth = 0.1;  // px

struct Node {
  std::string name;
  uint64_t value = 0;  // counts (us), including children
  // By name as flamegraph.pl orders them, but numbers by value ("step#2"
  // before "step#10").
  std::map<std::string, std::unique_ptr<Node>, NaturalLess> children;
};

std::vector<std::string> split_frames(const std::string& frames) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t semi = frames.find(';', start);
    out.push_back(frames.substr(start, semi == std::string::npos ? std::string::npos : semi - start));
    if (semi == std::string::npos) return out;
    start = semi + 1;
  }
}

int depth_of(const Node& node) {
  int deepest = 0;
  for (const auto& [name, child] : node.children) deepest = std::max(deepest, 1 + depth_of(*child));
  return deepest;
}

std::string with_thousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

std::string number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

// flamegraph.pl's "hot" palette, seeded by the name so colors are stable
// between runs and the same function has the same color everywhere.
std::string color(const std::string& name) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  const auto part = [&](int shift) { return static_cast<double>((hash >> shift) & 0xff) / 255.0; };
  const int r = 205 + static_cast<int>(50 * part(0));
  const int g = static_cast<int>(230 * part(8));
  const int b = static_cast<int>(55 * part(16));
  return "rgb(" + std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ")";
}

// The label that fits `width` px, flamegraph.pl style: cut with "..", or
// nothing below three characters.
std::string fitted_label(const std::string& name, double width) {
  const auto fits = static_cast<size_t>((width - 6) / (kFontSize * kFontWidth));
  if (fits < 3) return "";
  if (name.size() <= fits) return name;
  // Never cut inside a UTF-8 sequence.
  size_t cut = fits - 2;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut) + "..";
}

class SvgWriter {
 public:
  SvgWriter(std::ostream& out, double per_count, int height, uint64_t total, const std::string& unit)
      : out_(out), per_count_(per_count), height_(height), total_(total), unit_(unit) {}

  void frames(const Node& node, int depth, uint64_t offset) {
    const double width = static_cast<double>(node.value) * per_count_;
    if (width < kMinWidth && depth > 1) return;
    const double x = kPadX + static_cast<double>(offset) * per_count_;
    const int y = height_ - kPadBottom - (depth + 1) * kFrameHeight;
    const double percent = total_ ? 100.0 * static_cast<double>(node.value) / static_cast<double>(total_) : 0;
    const std::string name = xml_escape(node.name);
    out_ << "<g class=\"f\"><title>" << name << " (" << with_thousands(node.value) << ' ' << unit_ << ", "
         << number(percent) << "%)</title><rect " << (depth == 0 ? "id=\"root\" " : "") << "x=\"" << number(x) << "\" y=\"" << y << "\" width=\""
         << number(width) << "\" height=\"" << (kFrameHeight - 1) << "\" fill=\""
         << (depth == 0 ? std::string("rgb(220,220,220)") : color(node.name)) << "\" rx=\"2\"/><text x=\""
         << number(x + 3) << "\" y=\"" << (y + kFrameHeight - 4) << "\">" << xml_escape(fitted_label(node.name, width))
         << "</text></g>\n";
    uint64_t child_offset = offset;
    for (const auto& [child_name, child] : node.children) {
      frames(*child, depth + 1, child_offset);
      child_offset += child->value;
    }
  }

 private:
  std::ostream& out_;
  double per_count_;
  int height_;
  uint64_t total_;
  std::string unit_;
};

// Zoom, search and hover, after flamegraph.pl's script. The root frame's
// rect has id="root": the search measures matches against its width.
// Frames keep their original geometry in data-x/data-w; zooming rescales
// from those.
constexpr const char* kScript = R"JS(
"use strict";
var svg, frames, details, matchedText, unzoomButton, searchButton, searching = null;
var padX = 10, fontWidth = 0.59 * 12;
function frameName(g) { var t = g.querySelector("title").textContent; return t.substring(0, t.lastIndexOf(" (")); }
function fitText(g) {
  var r = g.querySelector("rect"), t = g.querySelector("text"), w = parseFloat(r.getAttribute("width"));
  var name = frameName(g), fits = Math.floor((w - 6) / fontWidth);
  t.setAttribute("x", parseFloat(r.getAttribute("x")) + 3);
  t.textContent = fits < 3 ? "" : (name.length <= fits ? name : name.substring(0, fits - 2) + "..");
}
function init() {
  svg = document.documentElement;
  frames = document.getElementById("frames");
  details = document.getElementById("details").firstChild;
  matchedText = document.getElementById("matched");
  unzoomButton = document.getElementById("unzoom");
  searchButton = document.getElementById("search");
  var all = frames.querySelectorAll("g.f");
  for (var i = 0; i < all.length; i++) {
    var r = all[i].querySelector("rect");
    all[i].setAttribute("data-x", r.getAttribute("x"));
    all[i].setAttribute("data-w", r.getAttribute("width"));
    all[i].setAttribute("data-fill", r.getAttribute("fill"));
  }
  frames.addEventListener("click", function (e) { var g = e.target.closest("g.f"); if (g) zoom(g); });
  frames.addEventListener("mouseover", function (e) {
    var g = e.target.closest("g.f");
    if (g) details.nodeValue = g.querySelector("title").textContent;
  });
  frames.addEventListener("mouseout", function () { details.nodeValue = " "; });
  unzoomButton.addEventListener("click", unzoom);
  searchButton.addEventListener("click", function () { if (searching) resetSearch(); else searchPrompt(); });
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey && e.key === "f") || e.key === "/") { e.preventDefault(); searchPrompt(); }
    else if (e.key === "Escape") { resetSearch(); unzoom(); }
  });
}
function zoom(target) {
  var x0 = parseFloat(target.getAttribute("data-x")), w0 = parseFloat(target.getAttribute("data-w"));
  var y0 = parseFloat(target.querySelector("rect").getAttribute("y"));
  var full = parseFloat(svg.getAttribute("width")) - 2 * padX, ratio = full / w0, eps = 0.0001;
  var all = frames.querySelectorAll("g.f");
  for (var i = 0; i < all.length; i++) {
    var g = all[i], r = g.querySelector("rect");
    var x = parseFloat(g.getAttribute("data-x")), w = parseFloat(g.getAttribute("data-w"));
    var y = parseFloat(r.getAttribute("y"));
    g.style.display = "";
    g.style.opacity = "";
    if (y > y0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {  // an ancestor: full width, greyed
      r.setAttribute("x", padX); r.setAttribute("width", full); g.style.opacity = "0.5";
    } else if (y <= y0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {  // the target or inside it
      r.setAttribute("x", padX + (x - x0) * ratio); r.setAttribute("width", w * ratio);
    } else {
      g.style.display = "none";
    }
    fitText(g);
  }
  unzoomButton.style.opacity = "1";
}
function unzoom() {
  var all = frames.querySelectorAll("g.f");
  for (var i = 0; i < all.length; i++) {
    var g = all[i], r = g.querySelector("rect");
    g.style.display = ""; g.style.opacity = "";
    r.setAttribute("x", g.getAttribute("data-x")); r.setAttribute("width", g.getAttribute("data-w"));
    fitText(g);
  }
  unzoomButton.style.opacity = "0";
}
function searchPrompt() {
  var term = window.prompt("Search for (regular expression):", "");
  if (term) search(term);
}
function search(term) {
  var re;
  try { re = new RegExp(term); } catch (err) { window.alert("Not a regular expression: " + err.message); return; }
  var all = frames.querySelectorAll("g.f"), spans = [];
  var total = parseFloat(document.getElementById("root").parentNode.getAttribute("data-w"));
  for (var i = 0; i < all.length; i++) {
    var g = all[i], r = g.querySelector("rect");
    var x = parseFloat(g.getAttribute("data-x")), w = parseFloat(g.getAttribute("data-w"));
    if (re.test(frameName(g))) { r.setAttribute("fill", "rgb(230,0,230)"); spans.push([x, x + w]); }
    else r.setAttribute("fill", g.getAttribute("data-fill"));
  }
  // Nested matches overlap: count the union of the matched spans.
  spans.sort(function (a, b) { return a[0] - b[0]; });
  var covered = 0, end = -1;
  for (var k = 0; k < spans.length; k++) {
    var s = Math.max(spans[k][0], end);
    if (spans[k][1] > s) { covered += spans[k][1] - s; end = spans[k][1]; }
  }
  searching = term;
  searchButton.firstChild.nodeValue = "Reset Search";
  matchedText.firstChild.nodeValue = "Matched: " + (total > 0 ? (100 * covered / total).toFixed(1) : "0.0") + "%";
}
function resetSearch() {
  var all = frames.querySelectorAll("g.f");
  for (var i = 0; i < all.length; i++) all[i].querySelector("rect").setAttribute("fill", all[i].getAttribute("data-fill"));
  searching = null;
  searchButton.firstChild.nodeValue = "Search";
  matchedText.firstChild.nodeValue = " ";
}
)JS";

}  // namespace

void write_flame_graph_svg(const std::vector<FoldedStack>& stacks, const FlameGraphOptions& options, std::ostream& out) {
  Node root;
  root.name = "all";
  for (const FoldedStack& s : stacks) {
    const uint64_t count = (s.ns + 500) / 1000;  // as write_folded_stacks rounds
    if (count == 0) continue;
    root.value += count;
    Node* node = &root;
    for (std::string& frame : split_frames(s.frames)) {
      auto& child = node->children[frame];
      if (!child) {
        child = std::make_unique<Node>();
        child->name = std::move(frame);
      }
      child->value += count;
      node = child.get();
    }
  }
  const int width = std::max(options.width, 2 * kPadX + 100);
  // A subtitle gets a line of its own below the title, above the top row
  // of frames (flamegraph.pl's extra top padding).
  const int subtitle_pad = options.subtitle.empty() ? 0 : kFontSize * 2;
  const int height = (depth_of(root) + 1) * kFrameHeight + kPadTop + subtitle_pad + kPadBottom;
  const double per_count = root.value ? static_cast<double>(width - 2 * kPadX) / static_cast<double>(root.value) : 0;

  out << "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      << "<svg version=\"1.1\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' '
      << height << "\" xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n"
      << "<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: " << kFontSize
      << "px; fill: rgb(0,0,0); } #frames text { pointer-events: none; } g.f:hover rect { stroke: black; "
         "stroke-width: 0.5; cursor: pointer; } .button { cursor: pointer; } .button:hover { text-decoration: "
         "underline; }</style>\n"
      << "<script type=\"text/ecmascript\"><![CDATA[" << kScript << "]]></script>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"rgb(248,248,248)\"/>\n"
      << "<text id=\"title\" x=\"" << width / 2 << "\" y=\"" << kFontSize * 2 << "\" text-anchor=\"middle\" "
      << "style=\"font-size: 17px\">" << xml_escape(options.title) << "</text>\n";
  if (!options.subtitle.empty())
    out << "<text id=\"subtitle\" x=\"" << width / 2 << "\" y=\"" << kFontSize * 4
        << "\" text-anchor=\"middle\" style=\"fill: rgb(100,100,100)\">" << xml_escape(options.subtitle) << "</text>\n";
  out << "<text id=\"unzoom\" class=\"button\" x=\"" << kPadX << "\" y=\"" << kFontSize * 2
      << "\" style=\"opacity: 0\">Reset Zoom</text>\n"
      << "<text id=\"search\" class=\"button\" x=\"" << width - kPadX << "\" y=\"" << kFontSize * 2
      << "\" text-anchor=\"end\">Search</text>\n"
      << "<text id=\"matched\" x=\"" << width - kPadX << "\" y=\"" << height - kFontSize / 2
      << "\" text-anchor=\"end\"> </text>\n"
      << "<text id=\"details\" x=\"" << kPadX << "\" y=\"" << height - kFontSize / 2 << "\"> </text>\n"
      << "<g id=\"frames\">\n";
  SvgWriter(out, per_count, height, root.value, options.unit).frames(root, 0, 0);
  out << "</g>\n</svg>\n";
}

}  // namespace prof::analyzer
