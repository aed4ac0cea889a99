#include "capture/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace prof {
namespace {

constexpr char kSoname[] = "libcupti.so.13";

void* open_cupti(std::string& path) {
  // RTLD_LOCAL: CUPTI's symbols must not become candidates for the app's own
  // lookups. RTLD_NOLOAD first: an app that loaded CUPTI itself shares it.
  if (void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    path = kSoname;
    return handle;
  }
  std::vector<std::string> candidates = {kSoname};
  const char* cuda_home = getenv("CUDA_HOME");
  for (std::string root : {std::string(cuda_home ? cuda_home : ""), std::string("/usr/local/cuda")}) {
    if (root.empty()) continue;
    candidates.push_back(root + "/extras/CUPTI/lib64/" + kSoname);
    candidates.push_back(root + "/lib64/" + kSoname);
  }
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      path = candidate;
      return handle;
    }
  }
  return nullptr;
}

template <typename Function>
void find(void* handle, const char* name, Function& out) {
  out = reinterpret_cast<Function>(dlsym(handle, name));
}

}  // namespace

const char* CuptiLibrary::describe(CUptiResult result) const {
  const char* text = nullptr;
  if (GetResultString != nullptr && GetResultString(result, &text) == CUPTI_SUCCESS && text) {
    return text;
  }
  return "unknown CUPTI error";
}

bool load_cupti(CuptiLibrary& cupti, std::string& why) {
  cupti.handle = open_cupti(cupti.path);
  if (cupti.handle == nullptr) {
    const char* error = dlerror();
    why = std::string("cannot load ") + kSoname + " (" + (error != nullptr ? error : "not found") + ")";
    return false;
  }
  void* h = cupti.handle;
  find(h, "cuptiGetVersion", cupti.GetVersion);
  find(h, "cuptiGetResultString", cupti.GetResultString);
  find(h, "cuptiSubscribe", cupti.Subscribe);
  find(h, "cuptiSubscribe_v2", cupti.Subscribe_v2);
  find(h, "cuptiUnsubscribe", cupti.Unsubscribe);
  find(h, "cuptiEnableDomain", cupti.EnableDomain);
  find(h, "cuptiEnableCallback", cupti.EnableCallback);
  find(h, "cuptiActivityRegisterCallbacks", cupti.ActivityRegisterCallbacks);
  find(h, "cuptiActivityRegisterTimestampCallback", cupti.ActivityRegisterTimestampCallback);
  find(h, "cuptiActivityEnable", cupti.ActivityEnable);
  find(h, "cuptiActivityDisable", cupti.ActivityDisable);
  find(h, "cuptiActivityFlushAll", cupti.ActivityFlushAll);
  find(h, "cuptiActivityGetNextRecord", cupti.ActivityGetNextRecord);
  find(h, "cuptiActivityGetNumDroppedRecords", cupti.ActivityGetNumDroppedRecords);
  find(h, "cuptiFinalize", cupti.Finalize);
  find(h, "cuptiGetCallbackName", cupti.GetCallbackName);
  const bool complete = cupti.GetVersion && cupti.Subscribe && cupti.EnableDomain &&
                        cupti.ActivityRegisterCallbacks && cupti.ActivityEnable &&
                        cupti.ActivityFlushAll && cupti.ActivityGetNextRecord;
  if (!complete) {
    why = cupti.path + " lacks functions the agent needs";
    return false;
  }
  return true;
}

}  // namespace prof
