#pragma once
// Names the place in the program an API call came from: the frames of its
// recorded stack below the CUDA libraries and the agent, innermost first,
// and sums costs per distinct call site.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "advise/advise.h"
#include "model/run.h"
#include "views/frame_names.h"

namespace prof::analyzer {

class CallSites {
 public:
  CallSites(const Run& events, const FrameNamer& namer) : events_(events), namer_(namer) {}

  // Adds `cost_ns` (and one call when `count_call`) to the site of API call
  // `call` (an index into events.cpu_events; < 0 is ignored).
  void add(int64_t call, uint64_t cost_ns, bool count_call);
  // Adds `calls` calls at the site of `call`: add(call, 0, true) that many
  // times, for calls counted per site beforehand.
  void add_calls(int64_t call, uint64_t calls);
  // Most costly first (then most calls, then by name: a stable order).
  std::vector<CallSite> sorted(size_t limit = 3) const;
  bool empty() const { return sites_.empty(); }

  // The app frames of a call's stack, innermost first, at most `depth`.
  std::vector<std::string> frames_of(int64_t call, size_t depth = 3) const;

 private:
  CallSite& site_of(int64_t call);  // made, with its name and frames, at its first call

  const Run& events_;
  const FrameNamer& namer_;
  std::map<std::tuple<NameId, uint32_t>, CallSite> sites_;  // (API name, stack)
};

}  // namespace prof::analyzer
