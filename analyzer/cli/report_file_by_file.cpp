#include "cli/report_file_by_file.h"

#include <sstream>

#include "cli/load_files.h"
#include "model/range_tree.h"
#include "model/run_builder.h"
#include "model/torch_ranges.h"

namespace prof::analyzer {
namespace {

// What a file says about the GPU work its API calls launched: it moves to
// the enclosing torch operator or record_function scope only in a run with
// operators, so a file with scopes but no operator gives other rows alone
// than among files with operators.
struct TorchRangeKinds {
  bool operators = false;
  bool scopes = false;
};

TorchRangeKinds torch_range_kinds(const Run& run) {
  TorchRangeKinds kinds;
  const TorchRanges torch(run);
  kinds.operators = torch.any_operator();
  for (NameId id = 0; id < run.name_count() && !kinds.scopes; ++id)
    kinds.scopes = torch.of(id).kind == TorchRangeKind::kAnnotation;
  return kinds;
}

// The memory records of a file, per side (device, host). A side that has
// tensor memory in any process of a run is read from tensor memory in all
// (RangeTree, tensor_memory_usage.h): a file's segments (MemoryEvents) on
// that side count alone but not among files with tensor memory there.
struct MemorySides {
  bool tensors[2] = {false, false};   // [0]: device, [1]: host
  bool segments[2] = {false, false};  // allocations and releases of the CUDA API
};

MemorySides memory_sides(const Run& run) {
  MemorySides sides;
  for (const TensorMemoryEvent& m : run.tensor_memory_events) sides.tensors[m.device < 0 ? 1 : 0] = true;
  for (const MemoryEvent& m : run.memory_events) sides.segments[m.on_device ? 0 : 1] = true;
  return sides;
}

// What the files so far say about each other.
class FileDependence {
 public:
  // Adds one file: true when a file so far counts other figures alone than
  // it would in one Run of them all.
  bool add(const Run& file_run) {
    const TorchRangeKinds kinds = torch_range_kinds(file_run);
    operators_ = operators_ || kinds.operators;
    scopes_without_operators_ = scopes_without_operators_ || (kinds.scopes && !kinds.operators);
    const MemorySides sides = memory_sides(file_run);
    for (int side = 0; side < 2; ++side) {
      tensors_[side] = tensors_[side] || sides.tensors[side];
      segments_without_tensors_[side] =
          segments_without_tensors_[side] || (sides.segments[side] && !sides.tensors[side]);
    }
    return (operators_ && scopes_without_operators_) || (tensors_[0] && segments_without_tensors_[0]) ||
           (tensors_[1] && segments_without_tensors_[1]);
  }

 private:
  bool operators_ = false;
  bool scopes_without_operators_ = false;
  bool tensors_[2] = {false, false};
  bool segments_without_tensors_[2] = {false, false};
};

}  // namespace

bool file_by_file_applies(const ReportOptions& options, size_t file_count) {
  return file_count > 1 && options.view == "table" && options.windows.step.empty() &&
         !options.windows.schedule_given && options.group_by_stack_n == 0;
}

FileByFileResult key_averages_file_by_file(const std::vector<std::string>& paths, const GroupOptions& group,
                                           FileByFileTable& table, std::ostream& err) {
  // Held back until the pass is through, so that a pass given up for one
  // Run prints nothing twice.
  std::ostringstream warnings;
  KeyAverageRows rows;
  FileDependence dependence;
  bool needs_one_run = false;
  auto add_file = [&](Run& file_run) {
    if (file_run.processes.front().window || dependence.add(file_run)) {
      needs_one_run = true;
      return false;
    }
    // Memory columns: when any file recorded memory of that kind, as
    // report's one Run shows them.
    for (const MemoryEvent& m : file_run.memory_events) (m.on_device ? table.cuda_memory : table.cpu_memory) = true;
    for (const TensorMemoryEvent& m : file_run.tensor_memory_events)
      (m.device >= 0 ? table.cuda_memory : table.cpu_memory) = true;
    const auto index = static_cast<uint32_t>(table.processes.size());
    rows.add_run(file_run, group, index);
    table.processes.push_back(std::move(file_run.processes.front()));
    return true;
  };
  if (auto error = load_file_by_file(paths, warnings, LoadDepth::kGpuSums, load_jobs(), add_file)) {
    err << warnings.str() << "profanalyze: " << error->describe() << '\n';
    return FileByFileResult::kBadInput;
  }
  if (needs_one_run) return FileByFileResult::kNeedsOneRun;
  err << warnings.str();
  table.rows = std::move(rows).take();
  return FileByFileResult::kDone;
}

}  // namespace prof::analyzer
