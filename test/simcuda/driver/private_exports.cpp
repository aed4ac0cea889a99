// simcuda_* queries for simcuda's own libcupti (see simcuda/tracer_abi.h). They do
// not open an ApiScope: CUPTI's own queries are not API calls the app made.
#include "device_model.h"

extern "C" {

__attribute__((visibility("default"))) int simcuda_device_count(void) {
  return simcuda::device_count();
}

__attribute__((visibility("default"))) int simcuda_device_info(int ordinal, SimDeviceInfo* info) {
  const SimDeviceInfo* found = simcuda::device_info(ordinal);
  if (found == nullptr || info == nullptr) return -1;
  *info = *found;
  return 0;
}

__attribute__((visibility("default"))) int simcuda_context_ids(CUcontext context, uint32_t* context_id,
                                                               uint32_t* device) {
  return simcuda::context_ids(context, context_id, device) == CUDA_SUCCESS ? 0 : -1;
}

__attribute__((visibility("default"))) int simcuda_stream_id(CUcontext context, CUstream stream,
                                                             uint32_t* stream_id) {
  if (stream_id == nullptr) return -1;
  return simcuda::stream_id_in_context(context, stream, stream_id) == CUDA_SUCCESS ? 0 : -1;
}

}  // extern "C"
