// Texture and surface objects over CUDA arrays, as NVIDIA's simpleTexture and
// simpleSurfaceWrite samples use them: a 2D float array filled from the host
// (cudaMemcpy2DToArray), a texture object sampling it into linear memory, a
// surface object on a second array, a texture over pitched linear memory, the
// array read back (cudaMemcpy2DFromArray), and a 3D array.
// Usage: texture_objects. Prints one line.
#include <vector>

#include "app_common.h"

constexpr int kWidth = 256, kHeight = 128;

__global__ void sample_kernel(float* out, cudaTextureObject_t texture, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}

__global__ void surface_kernel(cudaSurfaceObject_t surface, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) surf2Dwrite(static_cast<float>(x + y), surface, x * sizeof(float), y);
}

int main() {
  std::vector<float> image(kWidth * kHeight), back(kWidth * kHeight, 0.0f);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>(i % 977);
  size_t row = kWidth * sizeof(float);

  CHECK_CUDA(cudaFree(nullptr));  // starts CUDA (the agent's hooks do not wrap cudaMallocArray)
  cudaChannelFormatDesc channel = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t array = nullptr, written = nullptr, volume = nullptr;
  CHECK_CUDA(cudaMallocArray(&array, &channel, kWidth, kHeight));
  CHECK_CUDA(cudaMallocArray(&written, &channel, kWidth, kHeight, cudaArraySurfaceLoadStore));
  CHECK_CUDA(cudaMalloc3DArray(&volume, &channel, make_cudaExtent(32, 32, 8)));
  CHECK_CUDA(cudaMemcpy2DToArray(array, 0, 0, image.data(), row, row, kHeight, cudaMemcpyHostToDevice));

  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureDesc sampling{};
  sampling.addressMode[0] = sampling.addressMode[1] = cudaAddressModeClamp;
  sampling.filterMode = cudaFilterModePoint;
  sampling.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture = 0;
  CHECK_CUDA(cudaCreateTextureObject(&texture, &resource, &sampling, nullptr));

  float* out = nullptr;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch(&out, &pitch, row, kHeight));
  dim3 block(16, 16), grid(kWidth / 16, kHeight / 16);
  sample_kernel<<<grid, block>>>(out, texture, kWidth, kHeight);
  CHECK_CUDA(cudaGetLastError());

  resource.res.array.array = written;
  cudaSurfaceObject_t surface = 0;
  CHECK_CUDA(cudaCreateSurfaceObject(&surface, &resource));
  surface_kernel<<<grid, block>>>(surface, kWidth, kHeight);
  CHECK_CUDA(cudaGetLastError());

  cudaResourceDesc pitched{};
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D.devPtr = out;
  pitched.res.pitch2D.desc = channel;
  pitched.res.pitch2D.width = kWidth;
  pitched.res.pitch2D.height = kHeight;
  pitched.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t linear_texture = 0;
  CHECK_CUDA(cudaCreateTextureObject(&linear_texture, &pitched, &sampling, nullptr));

  CHECK_CUDA(cudaMemcpy2DFromArray(back.data(), row, array, 0, 0, row, kHeight, cudaMemcpyDeviceToHost));
  CHECK_TRUE(back == image);  // nothing writes the sampled array
  CHECK_CUDA(cudaDeviceSynchronize());

  CHECK_CUDA(cudaDestroyTextureObject(linear_texture));
  CHECK_CUDA(cudaDestroyTextureObject(texture));
  CHECK_CUDA(cudaDestroySurfaceObject(surface));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFreeArray(volume));
  CHECK_CUDA(cudaFreeArray(written));
  CHECK_CUDA(cudaFreeArray(array));
  std::printf("texture_objects: %dx%d float array round trip, 2 textures and a surface\n", kWidth, kHeight);
  return 0;
}
