// Virtual memory management as NVIDIA's vectorAddMMAP uses it: physical
// allocations (cuMemCreate) of the device's granularity mapped side by side
// into one reserved range (cuMemAddressReserve, cuMemMap), made accessible
// (cuMemSetAccess), used as one buffer by copies and a memset across the
// chunks, then unmapped and released. Usage: vmm_mapping. Prints one line.
#include <cuda.h>

#include "driver_app_common.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  int supported = 0;
  CHECK_CU(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device));
  CHECK_TRUE(supported == 1);
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));

  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity = 0;
  CHECK_CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CHECK_TRUE(granularity > 0);
  constexpr int kChunks = 2;
  size_t bytes = kChunks * granularity;

  CUdeviceptr base;
  CHECK_CU(cuMemAddressReserve(&base, bytes, 0, 0, 0));
  CUmemGenericAllocationHandle chunks[kChunks];
  for (int i = 0; i < kChunks; ++i) {
    CHECK_CU(cuMemCreate(&chunks[i], granularity, &prop, 0));
    CHECK_CU(cuMemMap(base + i * granularity, granularity, 0, chunks[i], 0));
    CHECK_CU(cuMemRelease(chunks[i]));  // the mapping keeps the memory
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK_CU(cuMemSetAccess(base, bytes, &access, 1));

  std::vector<unsigned> out(bytes / sizeof(unsigned)), back(out.size(), 0);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned>(i * 2654435761u);
  CHECK_CU(cuMemcpyHtoD(base, out.data(), bytes));  // one copy across both chunks
  CHECK_CU(cuMemsetD32(base + granularity - 64, 7, 32));  // across the seam
  for (size_t i = (granularity - 64) / 4; i < (granularity + 64) / 4; ++i) out[i] = 7;
  CHECK_CU(cuMemcpyDtoH(back.data(), base, bytes));
  CHECK_TRUE(back == out);

  CHECK_CU(cuMemUnmap(base, bytes / kChunks));
  CHECK_CU(cuMemUnmap(base + granularity, granularity));
  CHECK_CU(cuMemAddressFree(base, bytes));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  std::printf("vmm_mapping: %d chunks of %zu KiB mapped as one buffer, round trip ok\n", kChunks, granularity / 1024);
  return 0;
}
