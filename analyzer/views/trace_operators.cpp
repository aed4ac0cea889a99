#include "views/trace_operators.h"

#include <map>
#include <tuple>

#include "views/text_escape.h"

namespace prof::analyzer {

namespace {

// Kineto's operator args of a range torch wrote for an operator.
std::string make_operator_args(const TorchRange& r) {
  std::string out;
  if (r.op_id) out += ",\"Record function id\":" + std::to_string(*r.op_id);
  if (r.seq) {
    // torch's profiler writes the forward thread of a backward node; the
    // NVTX text does not say it, and torch's autograd runs a CPU backward
    // on the thread that called backward(): 0 is Kineto's "same thread".
    out += ",\"Fwd thread id\":0,\"Sequence number\":" + std::to_string(*r.seq);
  }
  if (r.sizes) {
    // torch's sizes text is a JSON list of lists already ("[[64, 128], []]");
    // it was parsed as one, so it is written as it is.
    out += ",\"Input Dims\":" + *r.sizes;
  }
  return out;
}

}  // namespace

// An API call's enclosing range is found when its event is written, a few
// parent links up: a table of them was 8 bytes per event.
uint64_t TraceOperators::enclosing_external_id(size_t index) const {
  for (int64_t p = parents_.parent(index); p != RangeParents::kNoParent; p = parents_.parent(static_cast<size_t>(p)))
    if (run_.cpu_events[static_cast<size_t>(p)].kind == CpuEventKind::kPushPopRange)
      return range_external_id(static_cast<size_t>(p));
  return 0;
}

TraceOperators::TraceOperators(const Run& run, const RangeParents& parents)
    : run_(run), parents_(parents), torch_(run), operator_args_(run.name_count()) {
  const auto& events = run.cpu_events;
  for (NameId id = 0; id < run.name_count(); ++id)
    if (torch_.of(id).kind == TorchRangeKind::kOperator) operator_args_[id] = make_operator_args(torch_.of(id));

  // fwdbwd: per (process, seq), the earliest forward op and the earliest
  // backward node after it.
  std::map<std::tuple<uint32_t, int64_t>, size_t> forward, backward;
  for (size_t i = 0; i < events.size(); ++i) {
    if (!is_operator(i)) continue;
    const TorchRange& r = torch_.of(events[i].name);
    if (!r.seq) continue;
    auto& side = r.backward ? backward : forward;
    auto [it, added] = side.try_emplace({events[i].process, *r.seq}, i);
    if (!added && events[i].start_ns < events[it->second].start_ns) it->second = i;
  }
  for (const auto& [key, bwd] : backward) {
    auto fwd = forward.find(key);
    if (fwd == forward.end() || events[fwd->second].start_ns > events[bwd].start_ns) continue;
    const uint64_t id = range_external_id(fwd->second);
    flows_[fwd->second] = Flow{id, true};
    flows_[bwd] = Flow{id, false};
  }
}

bool TraceOperators::is_operator(size_t range) const { return torch_.is_operator(run_.cpu_events[range]); }

std::string TraceOperators::name(size_t range) const {
  const CpuEvent& e = run_.cpu_events[range];
  if (e.nvtx_domain() != Run::kNoName) return run_.name(e.nvtx_domain()) + ":" + run_.name(e.name);
  return torch_.of(e.name).name;
}

const std::string& TraceOperators::operator_args(size_t range) const {
  static const std::string kNone;
  return is_operator(range) ? operator_args_[run_.cpu_events[range].name] : kNone;
}

}  // namespace prof::analyzer
