#pragma once
// The aggregates the HTML page (`profanalyze html`) draws, as JSON pieces:
// sizes grow with distinct names, stacks and devices, never with events,
// so a 10M-event capture's page stays small. Times are integer ns, sizes
// integer bytes, as in `report --format json`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "views/folded_stacks.h"
#include "views/frame_names.h"

namespace prof::analyzer {

// Per process: pid, host, rank, devices, duration, drops (the run's facts).
std::string run_facts_json(const Run& run);

// Per kernel name: count and a duration histogram (`bins` equal-width bins
// between the kernel's shortest and longest run).
std::string kernel_histograms_json(const Run& run, size_t bins = 16);

// Copies and memsets by name (kind and direction): count, bytes, time and
// the achieved bandwidth (bytes over summed duration).
std::string copy_bandwidth_json(const Run& run);

// Device memory in use over time per (process, device), a running sum of the
// memory records from the start of the run, at most `max_points` points
// (each bucket keeps its highest value, so the peak is always drawn), the
// peak, and the `largest` biggest allocations with their call stacks.
std::string memory_json(const Run& run, const FrameNamer& namer, size_t max_points = 600, size_t largest = 10);

// A flamegraph 1200 px wide shows a frame of 1/20000 of the total at 0.06 px,
// and at 0.5 px only zoomed in 8 times.
inline constexpr uint64_t kSmallestStackShare = 20000;
// Past this many nodes that share is halved until they fit, so the page
// stays small (a node is about 12 bytes, its name once per distinct frame).
inline constexpr size_t kMaxStackNodes = 20000;

// Folded stacks as one tree: {"min_share":N,"names":[...],"nodes":[parent,
// name, ns, ...]}, nodes in preorder (a parent before its children; -1: a
// root), names indexed in order of first use. A node's children under 1/N
// of the total are summed into one node "[K frames too small to draw]", so
// the total stays; N starts at smallest_share and is halved until at most
// max_nodes nodes are left.
std::string stack_tree_json(const std::vector<FoldedStack>& stacks, uint64_t smallest_share = kSmallestStackShare,
                            size_t max_nodes = kMaxStackNodes);

// stack_tree_json of the folded stacks of both metrics (folded_stacks.h):
// {"cuda": {...}, "cpu": {...}}.
std::string stacks_json(const Run& run, const RangeParents& parents, const FrameNamer& namer);

}  // namespace prof::analyzer
