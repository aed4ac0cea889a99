// Nested NVTX ranges on 4 threads, with known call counts per range name:
// per thread, "outer" x kOuter, "middle" x kOuter*2, "inner" x kOuter*2*3,
// plus one start/end range and one mark on the main thread.
// Prints a checksum so that the test can compare stdout with and without the
// agent; exits with code 3 so that the exit code is checked too.
#include <nvtx3/nvToolsExt.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;
constexpr int kOuter = 50;

// Per thread: the busy work must not be a data race of its own.
thread_local volatile unsigned long g_sink = 0;

void spin(int n) {
  for (int i = 0; i < n; ++i) g_sink = g_sink + static_cast<unsigned long>(i);
}

unsigned long work(int thread_index) {
  char name[32];
  snprintf(name, sizeof(name), "worker %d", thread_index);
  nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), name);
  unsigned long checksum = 0;
  for (int i = 0; i < kOuter; ++i) {
    nvtxRangePushA("outer");
    spin(2000);
    for (int j = 0; j < 2; ++j) {
      nvtxRangePushA("middle");
      spin(1000);
      for (int k = 0; k < 3; ++k) {
        nvtxRangePushA("inner");
        spin(500);
        checksum += static_cast<unsigned long>(i * 6 + j * 3 + k);
        nvtxRangePop();
      }
      nvtxRangePop();
    }
    nvtxRangePop();
  }
  return checksum;
}

}  // namespace

// A library's own NVTX domain, with a registered string and a wide message.
void domain_ranges() {
  nvtxDomainHandle_t io = nvtxDomainCreateA("io");
  nvtxStringHandle_t read = nvtxDomainRegisterStringA(io, "read");
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = read;
  for (int i = 0; i < 3; ++i) {
    nvtxDomainRangePushEx(io, &attributes);
    spin(1000);
    nvtxDomainRangePop(io);
  }
  nvtxEventAttributes_t wide = {};
  wide.version = NVTX_VERSION;
  wide.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  wide.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  wide.message.unicode = L"write \u00e9t\u00e9";
  nvtxDomainRangePushEx(io, &wide);
  nvtxDomainRangePop(io);
  nvtxDomainDestroy(io);
}

int main() {
  nvtxRangeId_t whole = nvtxRangeStartA("whole run");
  nvtxMarkA("start");
  domain_ranges();
  std::vector<unsigned long> sums(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&sums, t] { sums[t] = work(t); });
  for (auto& thread : threads) thread.join();
  nvtxRangeEnd(whole);
  unsigned long total = 0;
  for (unsigned long s : sums) total += s;
  printf("checksum %lu\n", total);
  return 3;
}
