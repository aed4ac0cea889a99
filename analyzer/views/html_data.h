#pragma once
// The aggregates the HTML page (`profanalyze html`) draws, as JSON pieces:
// sizes grow with distinct names, stacks and devices, never with events,
// so a 10M-event capture's page stays small. Times are integer ns, sizes
// integer bytes, as in `report --format json`.

#include <string>

#include "model/range_tree.h"
#include "model/run.h"
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

// The folded stacks of both metrics (folded_stacks.h) as one tree each:
// {"cuda": {"min_share", "names", "nodes": [parent, name, ns, ...]}, "cpu": ...};
// frames under 1/min_share of the total (20000, fewer past 20000 nodes) are
// summed into one node per parent.
std::string stacks_json(const Run& run, const RangeTree& tree, const FrameNamer& namer);

}  // namespace prof::analyzer
