// A PyTorch training loop as torch.autograd.profiler.emit_nvtx shows it to
// an NVTX tool, without torch: the exact range strings torch writes
// (torch/csrc/profiler/util.cpp, getNvtxStr), around simcuda kernels,
// copies, memsets and syncs, so the analyzer's operator views can be
// checked against simcuda's truth log. Usage: torch_ops [steps=2] [format]
//   format  2.x           NAME[, seq = N], op_id = M[, sizes = [[..]]][, input_op_ids = [(id,out), ..]]
//           2.x-noshapes  NAME[, seq = N], op_id = M           (record_shapes=False)
//           1.13          NAME[, seq = N][, sizes = [[..]]]      (no op ids yet)
//           1.13-noshapes NAME[, seq = N]
// Each step: ProfilerStep#N, a DataLoader fetch, the batch copied in
// (aten::to), a two-layer MLP under nn.Module ranges (aten::linear ->
// aten::t + aten::addmm, aten::relu), an MSE loss, its backward (autograd
// nodes whose seq is their forward op's), AdamW's zero_grad and step, and
// loss.item(). Every kernel's name says which operator launched it
// (addmm_gemm_kernel: aten::addmm), which the test maps to torch's rows.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app_common.h"

__global__ void addmm_gemm_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1.0f;
}
__global__ void relu_fwd_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0) x[i] = 0;
}
__global__ void mse_loss_kernel(const float* x, float* loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) loss[0] = x[n - 1];
}
__global__ void mse_bwd_kernel(float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] *= 2.0f;
}
__global__ void mm_gemm_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] *= 0.5f;
}
__global__ void threshold_bwd_kernel(float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && grad[i] < 0) grad[i] = 0;
}
__global__ void adamw_kernel(float* weights, const float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] -= 0.001f * grad[i];
}

namespace {

bool g_op_ids = true;  // torch 2.x writes op_id
bool g_shapes = true;  // record_shapes
long g_next_op_id = 1;

// Host time inside each range before and after its children, as a real op
// spends in the dispatcher: readers that round to whole microseconds (HTA
// rounds starts up and ends down) then still see every range hold its
// children.
void host_work() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(2);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// One RecordFunction's range, as torch's NVTX observer pushes it.
struct Op {
  explicit Op(const char* name, long seq = -1, const char* sizes = nullptr, const char* input_op_ids = nullptr) {
    std::string text = name;
    if (seq >= 0) text += ", seq = " + std::to_string(seq);
    const long op_id = g_next_op_id++;
    if (g_op_ids) text += ", op_id = " + std::to_string(op_id);
    if (g_shapes && sizes != nullptr) text += std::string(", sizes = ") + sizes;
    if (g_shapes && g_op_ids && input_op_ids != nullptr) text += std::string(", input_op_ids = ") + input_op_ids;
    nvtxRangePushA(text.c_str());
    host_work();
  }
  ~Op() {
    host_work();
    nvtxRangePop();
  }
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
};

// An nn.Module call, as module hooks name it (no RecordFunction: no tail).
struct Module {
  explicit Module(const char* path) {
    nvtxRangePushA((std::string("nn.Module: ") + path).c_str());
    host_work();
  }
  ~Module() {
    host_work();
    nvtxRangePop();
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
};

constexpr int kElements = 1 << 14;
const dim3 kBlock(256), kGrid(kElements / 256);

// aten::linear = aten::t (a view: no kernel) + aten::addmm (one GEMM).
void linear(float* out, long seq, const char* linear_sizes, const char* addmm_sizes) {
  Op op("aten::linear", -1, linear_sizes, "[(3,0), (4,0), (5,0)]");
  { Op t("aten::t", seq, "[[256, 128]]", "[(4,0)]"); }
  Op addmm("aten::addmm", seq + 1, addmm_sizes, "[(5,0), (3,0), (6,0)]");
  addmm_gemm_kernel<<<kGrid, kBlock>>>(out, kElements);
}

// A backward node as the autograd engine runs it: the evaluate_function
// wrapper and the node, both with the seq of the forward op that made it.
void addmm_backward(float* grad, long seq) {
  Op wrapper(("autograd::engine::evaluate_function: AddmmBackward0"), seq);
  Op node("AddmmBackward0", seq);
  for (int i = 0; i < 2; ++i) {
    Op mm("aten::mm", -1, "[[64, 256], [256, 128]]");
    mm_gemm_kernel<<<kGrid, kBlock>>>(grad, kElements);
  }
}

void step(long n, float* batch, float* act, float* grad, float* weights, float* loss, std::vector<float>& host) {
  char name[64];
  std::snprintf(name, sizeof name, "ProfilerStep#%ld", n);
  Op profiler_step(name);
  {
    Op fetch("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    for (int i = 0; i < kElements; ++i) host[i] = static_cast<float>((i + n) % 17) - 8.0f;
  }
  {
    Op to("aten::to", -1, "[[64, 256], [], [], [], [], []]");
    Op to_copy("aten::_to_copy", -1, "[[64, 256], [], [], [], [], [], []]");
    { Op empty("aten::empty_strided", -1, "[[], [], [], [], [], []]"); }
    Op copy("aten::copy_", -1, "[[64, 256], [64, 256], []]");
    CHECK_CUDA(cudaMemcpyAsync(batch, host.data(), kElements * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaStreamSynchronize(nullptr));
  }
  const long seq = 100 * (n + 1);  // torch's counter only grows
  {
    Module net("Net");
    {
      Module encoder("Net.encoder");
      Module layer("Net.encoder.layers.0");
      {
        Module fc("Net.encoder.layers.0.fc");
        linear(act, seq, "[[64, 256], [128, 256], [128]]", "[[128], [64, 256], [256, 128], [], []]");
      }
      {
        Module relu("Net.encoder.layers.0.act");
        Op op("aten::relu", seq + 2, "[[64, 128]]", "[(7,0)]");
        relu_fwd_kernel<<<kGrid, kBlock>>>(act, kElements);
      }
    }
    Module head("Net.head");
    linear(act, seq + 3, "[[64, 128], [10, 128], [10]]", "[[10], [64, 128], [128, 10], [], []]");
  }
  {
    Op op("aten::mse_loss", seq + 5, "[[64, 10], [64, 10], []]", "[(9,0), (2,0)]");
    mse_loss_kernel<<<1, 1>>>(act, loss, kElements);
  }
  {
    Op ones("aten::ones_like", -1, "[[], [], [], [], [], []]");
    Op fill("aten::fill_", -1, "[[], []]");
    CHECK_CUDA(cudaMemsetAsync(grad, 0, kElements * sizeof(float)));
  }
  // loss.backward(): nodes in reverse order of their forward ops.
  {
    Op wrapper("autograd::engine::evaluate_function: MseLossBackward0", seq + 5);
    Op node("MseLossBackward0", seq + 5);
    Op op("aten::mse_loss_backward", -1, "[[], [64, 10], [64, 10], []]");
    mse_bwd_kernel<<<kGrid, kBlock>>>(grad, kElements);
  }
  addmm_backward(grad, seq + 4);  // the head's addmm
  {
    Op wrapper("autograd::engine::evaluate_function: ReluBackward0", seq + 2);
    Op node("ReluBackward0", seq + 2);
    Op op("aten::threshold_backward", -1, "[[64, 128], [64, 128], []]");
    threshold_bwd_kernel<<<kGrid, kBlock>>>(grad, kElements);
  }
  addmm_backward(grad, seq + 1);  // the encoder's addmm
  {
    Op zero("Optimizer.zero_grad#AdamW.zero_grad");
    Op op("aten::zero_", -1, "[[128, 256]]");
    Op fill("aten::fill_", -1, "[[128, 256], []]");
    CHECK_CUDA(cudaMemsetAsync(grad, 0, kElements * sizeof(float)));
  }
  {
    Op opt("Optimizer.step#AdamW.step");
    Op op("aten::_fused_adamw_", -1, "[[], [], [], [], [], [], [], [], [], [], [], [], [], []]");
    adamw_kernel<<<kGrid, kBlock>>>(weights, grad, kElements);
  }
  {
    float value = 0;
    Op item("aten::item", -1, "[[]]");
    Op dense("aten::_local_scalar_dense", -1, "[[]]");
    CHECK_CUDA(cudaMemcpy(&value, loss, sizeof value, cudaMemcpyDeviceToHost));
  }
  CHECK_CUDA(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = arg_count(argc, argv, 1, 2);
  const char* format = argc > 2 ? argv[2] : "2.x";
  if (std::strcmp(format, "2.x") == 0) {
  } else if (std::strcmp(format, "2.x-noshapes") == 0) {
    g_shapes = false;
  } else if (std::strcmp(format, "1.13") == 0) {
    g_op_ids = false;
  } else if (std::strcmp(format, "1.13-noshapes") == 0) {
    g_op_ids = false;
    g_shapes = false;
  } else {
    std::fprintf(stderr, "torch_ops: unknown format %s\n", format);
    return 1;
  }
  float *batch, *act, *grad, *weights, *loss;
  CHECK_CUDA(cudaMalloc(&batch, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&act, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&grad, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&weights, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&loss, sizeof(float)));
  std::vector<float> host(kElements);
  for (long n = 0; n < steps; ++n) step(n, batch, act, grad, weights, loss, host);
  CHECK_CUDA(cudaDeviceSynchronize());
  for (float* p : {batch, act, grad, weights, loss}) CHECK_CUDA(cudaFree(p));
  std::printf("torch_ops: %ld steps (%s)\n", steps, format);
  return 0;
}
