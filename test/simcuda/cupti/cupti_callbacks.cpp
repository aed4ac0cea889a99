// The callback API: one subscriber, per-(domain, cbid) enable bits, and the
// CUpti_CallbackData / CUpti_ResourceData / CUpti_SynchronizeData it receives.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "cupti_state.h"

namespace simcuda_cupti {
namespace {

struct Subscriber {
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  char name[64] = {};
};

// Sizes of each domain's callback id space.
constexpr uint32_t kDomainSizes[CUPTI_CB_DOMAIN_SIZE] = {
    0, CUPTI_DRIVER_TRACE_CBID_SIZE, CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_CBID_RESOURCE_SIZE,
    CUPTI_CBID_SYNCHRONIZE_SIZE, 0, 0};

std::mutex g_subscribe_mutex;
std::atomic<Subscriber*> g_subscriber{nullptr};
// Enable bits, read on every API call from any thread without a lock. Never
// freed: a thread may still make API calls while the program exits.
std::atomic<bool>* g_enabled[CUPTI_CB_DOMAIN_SIZE] = {};
// How many of a domain's bits are set: with none, an API call pays one load.
std::atomic<uint32_t> g_enabled_in_domain[CUPTI_CB_DOMAIN_SIZE] = {};

// Callers hold g_subscribe_mutex, so the counts follow the bits exactly.
void set_enabled(uint32_t domain, uint32_t cbid, bool on) {
  if (g_enabled[domain][cbid].exchange(on) == on) return;
  if (on) {
    g_enabled_in_domain[domain].fetch_add(1, std::memory_order_relaxed);
  } else {
    g_enabled_in_domain[domain].fetch_sub(1, std::memory_order_relaxed);
  }
}

bool valid_domain(CUpti_CallbackDomain domain) {
  return domain > CUPTI_CB_DOMAIN_INVALID && domain < CUPTI_CB_DOMAIN_SIZE && kDomainSizes[domain] > 0;
}

bool enabled(uint32_t domain, uint32_t cbid) {
  if (domain >= CUPTI_CB_DOMAIN_SIZE || cbid >= kDomainSizes[domain] || !g_enabled[domain]) return false;
  return g_enabled[domain][cbid].load(std::memory_order_relaxed);
}

void deliver(uint32_t domain, uint32_t cbid, const void* data) {
  Subscriber* subscriber = g_subscriber.load(std::memory_order_acquire);
  if (subscriber == nullptr || !enabled(domain, cbid)) return;
  subscriber->callback(subscriber->userdata, static_cast<CUpti_CallbackDomain>(domain), cbid, data);
}

// A subscriber that left. Not deleted: an API call on another thread may
// still be inside deliver(). Kept reachable (never-destroyed list) so leak
// checkers see it is on purpose. Under g_subscribe_mutex.
void retire(Subscriber* subscriber) {
  static auto* retired = new std::vector<Subscriber*>();
  retired->push_back(subscriber);
}

void api_callback(SimApiCall* call, CUpti_ApiCallbackSite site) {
  // A disabled callback costs the driver its enable check only.
  if (call->domain >= CUPTI_CB_DOMAIN_SIZE ||
      g_enabled_in_domain[call->domain].load(std::memory_order_relaxed) == 0 || !enabled(call->domain, call->cbid)) {
    return;
  }
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.functionName = call->function_name;
  data.functionParams = call->params;
  data.functionReturnValue = call->return_value;
  data.symbolName = call->symbol_name;
  data.context = call->context;
  data.contextUid = call->context_id;
  data.correlationData = &call->tracer_data;
  data.correlationId = call->correlation_id;
  deliver(call->domain, call->cbid, &data);
}

CUptiResult subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback, void* userdata,
                      const char* name, char* old_name, size_t old_name_size) {
  if (handle == nullptr || callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!attach()) return CUPTI_ERROR_UNKNOWN;  // what real CUPTI answers with no driver
  std::lock_guard<std::mutex> lock(g_subscribe_mutex);
  if (Subscriber* present = g_subscriber.load()) {
    if (old_name != nullptr && old_name_size > 0) std::snprintf(old_name, old_name_size, "%s", present->name);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  for (uint32_t d = 0; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    if (kDomainSizes[d] > 0 && !g_enabled[d]) {
      g_enabled[d] = new std::atomic<bool>[kDomainSizes[d]]();
    }
    for (uint32_t i = 0; i < kDomainSizes[d]; ++i) set_enabled(d, i, false);
  }
  auto* subscriber = new Subscriber{callback, userdata, {}};
  std::snprintf(subscriber->name, sizeof subscriber->name, "CUPTI for %s", name ? name : "unnamed subscriber");
  g_subscriber.store(subscriber, std::memory_order_release);
  *handle = reinterpret_cast<CUpti_SubscriberHandle>(subscriber);
  return CUPTI_SUCCESS;
}

}  // namespace

void callbacks_finalize() {
  std::lock_guard<std::mutex> lock(g_subscribe_mutex);
  for (uint32_t d = 0; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    if (!g_enabled[d]) continue;
    for (uint32_t i = 0; i < kDomainSizes[d]; ++i) set_enabled(d, i, false);
  }
  if (Subscriber* present = g_subscriber.exchange(nullptr, std::memory_order_acq_rel)) retire(present);
}

void callbacks_api_enter(SimApiCall* call) { api_callback(call, CUPTI_API_ENTER); }
void callbacks_api_exit(SimApiCall* call) { api_callback(call, CUPTI_API_EXIT); }

void callbacks_resource(const SimResourceEvent* event) {
  CUpti_ResourceData data{};
  data.context = event->context;
  data.resourceHandle.stream = event->stream;
  deliver(CUPTI_CB_DOMAIN_RESOURCE, event->cbid, &data);
}

void callbacks_synchronization(const SimSyncEvent* event) {
  uint32_t cbid;
  if (event->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE) {
    cbid = CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED;
  } else if (event->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE) {
    cbid = CUPTI_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED;
  } else {
    return;
  }
  CUpti_SynchronizeData data{};
  deliver(CUPTI_CB_DOMAIN_SYNCHRONIZE, cbid, &data);
}

}  // namespace simcuda_cupti

using namespace simcuda_cupti;

extern "C" {

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  return subscribe(subscriber, callback, userdata, nullptr, nullptr, 0);
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                       void* userdata, CUpti_SubscriberParams* pParams) {
  if (pParams == nullptr || pParams->structSize == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  return subscribe(subscriber, callback, userdata, pParams->subscriberName, pParams->oldSubscriberName,
                   pParams->oldSubscriberSize);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(g_subscribe_mutex);
  Subscriber* present = g_subscriber.load();
  if (subscriber == nullptr || reinterpret_cast<Subscriber*>(subscriber) != present) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  g_subscriber.store(nullptr, std::memory_order_release);
  retire(present);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (subscriber == nullptr || reinterpret_cast<Subscriber*>(subscriber) != g_subscriber.load()) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  if (!valid_domain(domain) || cbid >= kDomainSizes[domain]) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_subscribe_mutex);
  set_enabled(domain, cbid, enable != 0);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain) {
  if (subscriber == nullptr || reinterpret_cast<Subscriber*>(subscriber) != g_subscriber.load()) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  if (!valid_domain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_subscribe_mutex);
  for (uint32_t i = 0; i < kDomainSizes[domain]; ++i) set_enabled(domain, i, enable != 0);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber) {
  for (uint32_t d = 1; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    if (kDomainSizes[d] == 0) continue;
    if (CUptiResult r = cuptiEnableDomain(enable, subscriber, static_cast<CUpti_CallbackDomain>(d))) return r;
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (enable == nullptr || subscriber == nullptr || !valid_domain(domain) || cbid >= kDomainSizes[domain]) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *enable = enabled(domain, cbid);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  struct Named {
    uint32_t cbid;
    const char* name;
  };
  static constexpr Named kDriver[] = {
#include "driver_callback_names.inc"
  };
  static constexpr Named kRuntime[] = {
#include "runtime_callback_names.inc"
  };
  // The headers number each domain's ids 1, 2, 3, ... in order, so an id is its index + 1.
  constexpr auto numbered_in_order = [](std::span<const Named> table) {
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].cbid != i + 1) return false;
    }
    return true;
  };
  static_assert(numbered_in_order(kDriver) && numbered_in_order(kRuntime));
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = nullptr;
  const std::span<const Named> table = domain == CUPTI_CB_DOMAIN_DRIVER_API    ? std::span<const Named>(kDriver)
                                       : domain == CUPTI_CB_DOMAIN_RUNTIME_API ? std::span<const Named>(kRuntime)
                                                                               : std::span<const Named>();
  if (cbid == 0 || cbid > table.size() || table[cbid - 1].cbid != cbid) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = table[cbid - 1].name;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSupportedDomains(size_t* domainCount, CUpti_DomainTable* domainTable) {
  static const CUpti_CallbackDomain kDomains[] = {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API,
                                                  CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CB_DOMAIN_SYNCHRONIZE};
  if (domainCount == nullptr || domainTable == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *domainCount = 4;
  *domainTable = const_cast<CUpti_CallbackDomain*>(kDomains);
  return CUPTI_SUCCESS;
}

}  // extern "C"
