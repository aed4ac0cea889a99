#pragma once
// Which CUPTI API callbacks stay on outside capture windows: only those of
// the calls that can mark a step boundary (PROF_STEP=kernel:REGEX: the
// launches; api:NAME: NAME) or open the capture range (PROF_CAPTURE=
// cudaProfilerApi: cudaProfilerStart/Stop). Every other call then costs
// neither CUPTI's dispatch nor the agent's callback.
#include <cupti.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace prof {

struct CuptiLibrary;
class StepRule;

struct QuietCallbacks {
  // The ids could not be named (a CUPTI without cuptiGetCallbackName or
  // cuptiEnableCallback, or no name matched the rule): the domains stay on
  // whole, since a step boundary must never be missed.
  bool whole_domains = false;
  // Launch callbacks are on in every mode (a kernel rule), so a thread's
  // count of launches in flight never misses an exit.
  bool launches_always_on = false;
  std::vector<CUpti_CallbackId> runtime;
  std::vector<CUpti_CallbackId> driver;

  std::span<const CUpti_CallbackId> ids(CUpti_CallbackDomain domain) const;
  bool any() const { return whole_domains || !runtime.empty() || !driver.empty(); }
};

// `rule` is the CUDA step rule (kernel: or api:), null for none.
QuietCallbacks quiet_callbacks(const CuptiLibrary& cupti, const StepRule* rule, bool profiler_range);

// "cudaLaunchKernel, cuLaunchKernel, ..." (CUPTI's names), or what is on
// when they could not be named: for PROF_LOG=debug.
std::string describe(const QuietCallbacks& quiet, const CuptiLibrary& cupti);

// A callback's name as CUpti_CallbackData::functionName spells it: CUPTI
// names runtime callbacks after their enumerators ("cudaMalloc_v3020"), and
// their calls without the version ("cudaMalloc"); driver names are the
// functions' own ("cuMemAlloc_v2").
std::string_view function_name_of(CUpti_CallbackDomain domain, std::string_view callback_name);

}  // namespace prof
