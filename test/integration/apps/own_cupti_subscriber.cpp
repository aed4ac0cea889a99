// A program that uses CUPTI itself: it subscribes before its first CUDA call,
// counts the runtime calls it sees and takes GPU activity records. Under the
// agent it must keep its subscription and see exactly what it sees alone.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<int> g_runtime_exits{0};
std::atomic<int> g_memcpy_records{0};

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && call->callbackSite == CUPTI_API_EXIT) ++g_runtime_exits;
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) ++g_memcpy_records;
  }
  free(buffer);
}

}  // namespace

int main() {
  CUpti_SubscriberHandle subscriber;
  CUptiResult result = cuptiSubscribe(&subscriber, on_callback, nullptr);
  printf("cuptiSubscribe: %d\n", static_cast<int>(result));
  if (result == CUPTI_SUCCESS) {
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  }
  char host[4096] = {};
  void* device = nullptr;
  cudaError_t status = cudaMalloc(&device, sizeof(host));
  for (int i = 0; status == cudaSuccess && i < 10; ++i) {
    status = cudaMemcpy(device, host, sizeof(host), cudaMemcpyHostToDevice);
  }
  if (status == cudaSuccess) cudaFree(device);
  printf("CUDA status: %d\n", static_cast<int>(status));
  if (result == CUPTI_SUCCESS) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    printf("runtime calls seen: %d, memcpy records: %d\n", g_runtime_exits.load(), g_memcpy_records.load());
    cuptiUnsubscribe(subscriber);
  }
  return status == cudaSuccess ? 0 : 2;
}
