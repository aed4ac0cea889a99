// A small CUPTI tool (not the profiler's agent) that drives simcuda's libcupti the
// way a tracer does, runs a workload, and dumps what it received as JSON lines for
// check_cupti.py to compare with the ground-truth log.
//
// usage: cupti_tool OUT.jsonl [normal|no-buffers|cupti-off]
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

namespace {

#define CHECK_CUPTI(call)                                                                  \
  do {                                                                                     \
    CUptiResult check_result_ = (call);                                                    \
    if (check_result_ != CUPTI_SUCCESS) {                                                  \
      std::fprintf(stderr, "CUPTI error %d at line %d: %s\n", check_result_, __LINE__, #call); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t check_error_ = (call);                                                     \
    if (check_error_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "CUDA error %d at line %d: %s\n", check_error_, __LINE__, #call); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

std::mutex g_out_mutex;
std::FILE* g_out = nullptr;
long g_main_tid = 0;
std::atomic<int> g_buffers_from_other_threads{0};
std::atomic<int> g_buffers_completed{0};
size_t g_buffer_bytes = 4 * 1024;  // small, so that buffers fill up during the run
bool g_give_buffers = true;

void emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_out_mutex);
  std::fprintf(g_out, "%s\n", line.c_str());
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Per thread: the runtime call in progress, to check what the driver calls nest in.
struct OpenCall {
  uint32_t cbid;
  uint32_t correlation_id;
};
thread_local std::vector<OpenCall> t_open_runtime_calls;

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  char line[512];
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    std::snprintf(line, sizeof line, "{\"type\":\"resource\",\"cbid\":%u}", cbid);
    emit(line);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  bool enter = cb->callbackSite == CUPTI_API_ENTER;
  if (enter) *cb->correlationData = monotonic_ns();  // carried to the exit callback
  long parent_cbid = -1;
  unsigned parent_corr = 0;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && !t_open_runtime_calls.empty()) {
    parent_cbid = t_open_runtime_calls.back().cbid;
    parent_corr = t_open_runtime_calls.back().correlation_id;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (enter) {
      t_open_runtime_calls.push_back({cbid, cb->correlationId});
    } else if (!t_open_runtime_calls.empty()) {
      t_open_runtime_calls.pop_back();
    }
  }
  int result = enter ? 0 : *static_cast<int*>(cb->functionReturnValue);
  std::snprintf(line, sizeof line,
                "{\"type\":\"callback\",\"domain\":\"%s\",\"site\":\"%s\",\"cbid\":%u,\"name\":\"%s\","
                "\"corr\":%u,\"symbol\":\"%s\",\"params\":%d,\"result\":%d,\"data_kept\":%d,"
                "\"parent_cbid\":%ld,\"parent_corr\":%u,\"context_uid\":%u}",
                domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", enter ? "enter" : "exit", cbid,
                cb->functionName, cb->correlationId, cb->symbolName ? cb->symbolName : "",
                cb->functionParams != nullptr, result, enter || *cb->correlationData != 0, parent_cbid,
                parent_corr, cb->contextUid);
  emit(line);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  if (!g_give_buffers) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, g_buffer_bytes));
  *size = g_buffer_bytes;
}

void print_record(const CUpti_Activity* record) {
  char line[768];
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"kernel\",\"name\":\"%s\",\"start\":%llu,\"end\":%llu,\"stream\":%u,"
                    "\"corr\":%u,\"device\":%u,\"context\":%u,\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"graph\":%u}",
                    k->name, (unsigned long long)k->start, (unsigned long long)k->end, k->streamId, k->correlationId,
                    k->deviceId, k->contextId, k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
                    k->graphId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"memcpy\",\"copy_kind\":%u,\"src_kind\":%u,\"dst_kind\":%u,\"bytes\":%llu,"
                    "\"start\":%llu,\"end\":%llu,\"stream\":%u,\"corr\":%u}",
                    m->copyKind, m->srcKind, m->dstKind, (unsigned long long)m->bytes, (unsigned long long)m->start,
                    (unsigned long long)m->end, m->streamId, m->correlationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"memset\",\"bytes\":%llu,\"start\":%llu,\"end\":%llu,\"stream\":%u,\"corr\":%u,"
                    "\"value\":%u}",
                    (unsigned long long)m->bytes, (unsigned long long)m->start, (unsigned long long)m->end,
                    m->streamId, m->correlationId, m->value);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"%s\",\"address\":%llu,\"bytes\":%llu,\"time\":%llu,\"memory_kind\":%u,\"corr\":%u}",
                    m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? "alloc" : "free",
                    (unsigned long long)m->address, (unsigned long long)m->bytes, (unsigned long long)m->timestamp,
                    m->memoryKind, m->correlationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"api\",\"domain\":\"%s\",\"cbid\":%u,\"start\":%llu,\"end\":%llu,\"corr\":%u,"
                    "\"result\":%u,\"pid\":%u}",
                    record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver", a->cbid,
                    (unsigned long long)a->start, (unsigned long long)a->end, a->correlationId, a->returnValue,
                    a->processId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"sync\",\"sync_type\":%u,\"start\":%llu,\"end\":%llu,\"corr\":%u,\"stream\":%u}",
                    s->type, (unsigned long long)s->start, (unsigned long long)s->end, s->correlationId, s->streamId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      std::snprintf(line, sizeof line, "{\"type\":\"external\",\"external_kind\":%u,\"external_id\":%llu,\"corr\":%u}",
                    e->externalKind, (unsigned long long)e->externalId, e->correlationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
      std::snprintf(line, sizeof line,
                    "{\"type\":\"graph_trace\",\"corr\":%u,\"start\":%llu,\"end\":%llu,\"graph\":%u,"
                    "\"stream\":%u}",
                    g->correlationId, (unsigned long long)g->start, (unsigned long long)g->end, g->graphId,
                    g->streamId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      std::snprintf(line, sizeof line, "{\"type\":\"device\",\"id\":%u,\"name\":\"%s\",\"sms\":%u}", d->id, d->name,
                    d->numMultiprocessors);
      break;
    }
    default:
      std::snprintf(line, sizeof line, "{\"type\":\"other\",\"kind\":%d}", record->kind);
  }
  emit(line);
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  g_buffers_completed.fetch_add(1);
  if (syscall(SYS_gettid) != g_main_tid) g_buffers_from_other_threads.fetch_add(1);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) print_record(record);
  emit("{\"type\":\"buffer_end\"}");
  std::free(buffer);
}

__global__ void cupti_probe_kernel(int* data) {
  if (threadIdx.x == 0) data[0] = 1;
}

void run_workload() {
  constexpr size_t kBytes = 1 << 20;
  std::vector<unsigned char> host(kBytes, 7), back(kBytes);
  int* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, kBytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaMemcpy(device, host.data(), kBytes, cudaMemcpyHostToDevice));
  for (int i = 0; i < 40; ++i) cupti_probe_kernel<<<2, 64, 0, stream>>>(device);
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 4242);
  cupti_probe_kernel<<<1, 32, 0, stream>>>(device);
  uint64_t popped = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped);
  CHECK_CUDA(cudaMemsetAsync(device, 0, 4096, stream));
  // A captured graph of two memsets, launched twice (GRAPH_TRACE records).
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemsetAsync(device, 1, 4096, stream));
  CHECK_CUDA(cudaMemsetAsync(device, 2, 8192, stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaMemcpy(back.data(), device, kBytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(device));
  char line[128];
  std::snprintf(line, sizeof line, "{\"type\":\"popped\",\"id\":%llu}", (unsigned long long)popped);
  emit(line);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  std::string mode = argc > 2 ? argv[2] : "normal";
  g_out = std::fopen(argv[1], "w");
  if (g_out == nullptr) return 64;
  g_main_tid = syscall(SYS_gettid);

  uint32_t version = 0;
  CHECK_CUPTI(cuptiGetVersion(&version));
  CUpti_SubscriberHandle subscriber;
  CUptiResult subscribed = cuptiSubscribe(&subscriber, on_callback, nullptr);
  if (mode == "cupti-off") {
    // Real CUPTI with no driver: subscribing fails, the app still runs.
    const char* text = nullptr;
    cuptiGetResultString(subscribed, &text);
    std::printf("cuptiSubscribe: %d %s\n", subscribed, text ? text : "?");
    if (subscribed != CUPTI_ERROR_UNKNOWN) return 1;
    run_workload();
    std::fclose(g_out);
    return 0;
  }
  CHECK_CUPTI(subscribed);
  CUpti_SubscriberHandle second;
  CUptiResult again = cuptiSubscribe(&second, on_callback, nullptr);
  char old_name[128] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "second tool";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name;
  CUptiResult again_v2 = cuptiSubscribe_v2(&second, on_callback, nullptr, &params);
  char line[256];
  std::snprintf(line, sizeof line, "{\"type\":\"second_subscribe\",\"result\":%d,\"result_v2\":%d,\"old_name\":\"%s\"}",
                again, again_v2, old_name);
  emit(line);

  g_give_buffers = mode != "no-buffers";
  CHECK_CUPTI(cuptiActivityRegisterTimestampCallback([]() -> uint64_t { return monotonic_ns(); }));
  CHECK_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API));
  CHECK_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  CHECK_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE));
  CHECK_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DEVICE,
        CUPTI_ACTIVITY_KIND_GRAPH_TRACE}) {
    CHECK_CUPTI(cuptiActivityEnable(kind));
  }

  run_workload();
  // Let the CUPTI worker deliver full buffers on its own thread before
  // flushing: up to 5 s, because a loaded machine (CI, a parallel ctest) can
  // keep the worker from running for a while.
  timespec pause{0, 10 * 1000 * 1000};
  for (int waited = 0; waited < 500 && g_give_buffers && g_buffers_from_other_threads.load() == 0; ++waited) {
    nanosleep(&pause, nullptr);
  }
  CHECK_CUPTI(cuptiActivityFlushAll(0));
  CHECK_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  size_t dropped = 0;
  CHECK_CUPTI(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped));
  std::snprintf(line, sizeof line,
                "{\"type\":\"summary\",\"version\":%u,\"dropped\":%zu,\"buffers\":%d,\"buffers_off_main_thread\":%d}",
                version, dropped, g_buffers_completed.load(), g_buffers_from_other_threads.load());
  emit(line);
  CHECK_CUPTI(cuptiUnsubscribe(subscriber));
  CHECK_CUPTI(cuptiFinalize());
  std::fclose(g_out);
  return 0;
}
