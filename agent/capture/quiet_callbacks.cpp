#include "capture/quiet_callbacks.h"

#include "capture/cuda_call_kind.h"
#include "capture/cupti_library.h"
#include "common/log.h"
#include "step_rule.h"

namespace prof {
namespace {

bool needed_for_rule(const StepRule& rule, std::string_view function_name) {
  if (rule.kind() == StepRule::Kind::kApi) return function_name == rule.pattern();
  // kernel:REGEX matches the kernel a launch names, known only at the call.
  return classify_cuda_call(std::string(function_name).c_str()) == CudaCallKind::launch;
}

void add_profiler_range(QuietCallbacks& quiet) {
  quiet.runtime.push_back(CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  quiet.runtime.push_back(CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  quiet.driver.push_back(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  quiet.driver.push_back(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
}

}  // namespace

std::span<const CUpti_CallbackId> QuietCallbacks::ids(CUpti_CallbackDomain domain) const {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return runtime;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return driver;
  return {};
}

std::string_view function_name_of(CUpti_CallbackDomain domain, std::string_view callback_name) {
  // Also the enumerator's full spelling, should a CUPTI release answer with it.
  for (std::string_view prefix : {"CUPTI_RUNTIME_TRACE_CBID_", "CUPTI_DRIVER_TRACE_CBID_"}) {
    if (callback_name.starts_with(prefix)) callback_name.remove_prefix(prefix.size());
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return callback_name;
  const size_t suffix = callback_name.rfind("_v");
  if (suffix == std::string_view::npos || suffix + 2 == callback_name.size()) return callback_name;
  for (size_t i = suffix + 2; i < callback_name.size(); ++i) {
    if (callback_name[i] < '0' || callback_name[i] > '9') return callback_name;
  }
  return callback_name.substr(0, suffix);
}

QuietCallbacks quiet_callbacks(const CuptiLibrary& cupti, const StepRule* rule, bool profiler_range) {
  QuietCallbacks quiet;
  if (rule == nullptr && !profiler_range) return quiet;
  if (cupti.EnableCallback == nullptr) {
    quiet.whole_domains = true;
    quiet.launches_always_on = true;
    return quiet;
  }
  if (profiler_range) add_profiler_range(quiet);
  if (rule == nullptr) return quiet;
  quiet.launches_always_on = rule->kind() == StepRule::Kind::kKernel;
  size_t matched = 0;
  size_t named = 0;
  if (cupti.GetCallbackName != nullptr) {
    for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
      std::vector<CUpti_CallbackId>& ids = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? quiet.runtime : quiet.driver;
      for (CUpti_CallbackId cbid = 1; cbid < kMaxCallbackId; ++cbid) {
        const char* name = nullptr;
        if (cupti.GetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
        ++named;
        if (!needed_for_rule(*rule, function_name_of(domain, name))) continue;
        ids.push_back(cbid);
        ++matched;
      }
    }
  }
  if (matched == 0) {
    // Also where CUPTI names ids in a way this code does not expect: a rule
    // that matched no name must not go blind.
    if (named > 0 && rule->kind() == StepRule::Kind::kApi) {
      log_info("PROF_STEP=%s: CUPTI knows no CUDA call of that name (runtime and driver names, e.g. "
               "cudaLaunchKernel, cuLaunchKernel); every call is checked for it", rule->spelling().c_str());
    } else {
      log_debug("no CUPTI callback named for PROF_STEP=%s; its domains stay on between windows",
                rule->spelling().c_str());
    }
    quiet.whole_domains = true;
    quiet.launches_always_on = true;
  }
  return quiet;
}

std::string describe(const QuietCallbacks& quiet, const CuptiLibrary& cupti) {
  if (quiet.whole_domains) return "every runtime and driver call";
  std::string names;
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    for (CUpti_CallbackId cbid : quiet.ids(domain)) {
      const char* name = nullptr;
      if (cupti.GetCallbackName == nullptr || cupti.GetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) name = nullptr;
      if (!names.empty()) names += ", ";
      names += name != nullptr ? std::string(function_name_of(domain, name))
                               : (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime #" : "driver #") + std::to_string(cbid);
    }
  }
  return names.empty() ? "none" : names;
}

}  // namespace prof
