// Device code that module_loading loads at run time, compiled by the build
// into a cubin, a fatbin and PTX (nvcc -cubin / -fatbin / -ptx).
extern "C" __global__ void module_scale_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

extern "C" __global__ void module_fill_kernel(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i;
}

__device__ int module_counter[4];
