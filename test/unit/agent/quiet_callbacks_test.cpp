#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "capture/cupti_library.h"
#include "capture/quiet_callbacks.h"
#include "step_rule.h"

namespace {

// A CUPTI that names a few ids the way CUPTI does (runtime enumerator
// names carry a version, driver names are the functions').
CUptiResult CUPTIAPI name_some(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  static const char* const kRuntime[] = {nullptr, "cudaMalloc_v3020", "cudaLaunchKernel_v7000",
                                         "cudaGraphLaunch_v10000", "cudaGraphLaunch_ptsz_v10000",
                                         "cudaDeviceSynchronize_v3020"};
  static const char* const kDriver[] = {nullptr, "cuMemAlloc_v2", "cuLaunchKernel", "cuGraphLaunch"};
  *name = nullptr;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid > 0 && cbid < std::size(kRuntime)) *name = kRuntime[cbid];
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid > 0 && cbid < std::size(kDriver)) *name = kDriver[cbid];
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI enable_callback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}

prof::CuptiLibrary naming_cupti() {
  prof::CuptiLibrary cupti;
  cupti.GetCallbackName = name_some;
  cupti.EnableCallback = enable_callback;
  return cupti;
}

prof::StepRule rule(const char* text) {
  std::string error;
  return *prof::StepRule::parse(text, error);
}

using Ids = std::vector<CUpti_CallbackId>;

}  // namespace

TEST_CASE("callback names are spelled as the calls' functionName") {
  using prof::function_name_of;
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaMalloc_v3020") == "cudaMalloc");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaGraphLaunch_ptsz_v10000") == "cudaGraphLaunch_ptsz");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaGetDeviceProperties_v2_v12000") ==
        "cudaGetDeviceProperties_v2");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaMalloc") == "cudaMalloc");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020") == "cudaMalloc");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_DRIVER_API, "CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2") == "cuMemAlloc_v2");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaOdd_v") == "cudaOdd_v");
  CHECK(function_name_of(CUPTI_CB_DOMAIN_RUNTIME_API, "cudaOdd_vx1") == "cudaOdd_vx1");
  // A driver function's own name ends in _v2: it is the name called.
  CHECK(function_name_of(CUPTI_CB_DOMAIN_DRIVER_API, "cuMemAlloc_v2") == "cuMemAlloc_v2");
}

TEST_CASE("outside windows only the callbacks that can mark a step stay on") {
  const prof::CuptiLibrary cupti = naming_cupti();
  SECTION("api:NAME: the calls of NAME alone, not its per-thread-stream variant") {
    const prof::StepRule api = rule("api:cudaGraphLaunch");
    const prof::QuietCallbacks quiet = prof::quiet_callbacks(cupti, &api, false);
    CHECK_FALSE(quiet.whole_domains);
    CHECK_FALSE(quiet.launches_always_on);
    CHECK(quiet.runtime == Ids{3});
    CHECK(quiet.driver.empty());
    CHECK(prof::describe(quiet, cupti) == "cudaGraphLaunch");
  }
  SECTION("api:...Synchronize, which ends steps") {
    const prof::StepRule sync = rule("api:cudaDeviceSynchronize");
    CHECK(prof::quiet_callbacks(cupti, &sync, false).runtime == Ids{5});
  }
  SECTION("kernel:REGEX: every launch of both domains, which stay on in windows too") {
    const prof::StepRule kernel = rule("kernel:^step_kernel$");
    const prof::QuietCallbacks quiet = prof::quiet_callbacks(cupti, &kernel, false);
    CHECK(quiet.launches_always_on);
    CHECK(quiet.runtime == Ids{2, 3, 4});
    CHECK(quiet.driver == Ids{2, 3});
  }
  SECTION("cudaProfilerStart/Stop, with or without a rule") {
    const prof::QuietCallbacks range = prof::quiet_callbacks(cupti, nullptr, true);
    CHECK(range.runtime == Ids{CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
                               CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000});
    CHECK(range.driver == Ids{CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop});
    const prof::StepRule api = rule("api:cudaMalloc");
    CHECK(prof::quiet_callbacks(cupti, &api, true).runtime ==
          Ids{CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, 1});
  }
  SECTION("no CUDA rule and no profiler range: nothing") {
    const prof::QuietCallbacks quiet = prof::quiet_callbacks(cupti, nullptr, false);
    CHECK_FALSE(quiet.any());
    CHECK(prof::describe(quiet, cupti) == "none");
  }
}

TEST_CASE("a rule whose callbacks cannot be named keeps its domains on whole") {
  const prof::StepRule api = rule("api:cudaNoSuchCall");
  const prof::QuietCallbacks unmatched = prof::quiet_callbacks(naming_cupti(), &api, false);
  CHECK(unmatched.whole_domains);
  CHECK(prof::describe(unmatched, naming_cupti()) == "every runtime and driver call");

  prof::CuptiLibrary old_cupti = naming_cupti();
  old_cupti.GetCallbackName = nullptr;
  const prof::StepRule kernel = rule("kernel:.");
  CHECK(prof::quiet_callbacks(old_cupti, &kernel, false).whole_domains);
  old_cupti.EnableCallback = nullptr;
  CHECK(prof::quiet_callbacks(old_cupti, nullptr, true).whole_domains);
}
