#pragma once
// libcupti, loaded privately when CUDA starts: the agent links no CUDA
// library, so a process that never uses CUDA never loads one because of us.
#include <cupti.h>

#include <string>

namespace prof {

// The CUPTI functions the agent calls. A null member was not found (an old
// CUPTI); callers check the ones that are optional.
struct CuptiLibrary {
  void* handle = nullptr;
  std::string path;

  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiSubscribe_v2) Subscribe_v2 = nullptr;  // optional: names the other subscriber
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableDomain) EnableDomain = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) ActivityRegisterTimestampCallback = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  decltype(&cuptiFinalize) Finalize = nullptr;  // optional: detaching between windows
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;  // optional: quiet_callbacks() names ids with it

  // A readable name for a CUPTI result, also when CUPTI could not say.
  const char* describe(CUptiResult result) const;
};

// Finds and loads libcupti: a copy the process already loaded, then the
// soname through the loader's search path (LD_LIBRARY_PATH first), then the
// toolkit under CUDA_HOME (or /usr/local/cuda). False, with `why` filled in,
// when none loads or a required function is missing.
bool load_cupti(CuptiLibrary& cupti, std::string& why);

}  // namespace prof
