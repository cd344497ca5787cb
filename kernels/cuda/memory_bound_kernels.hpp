#pragma once
// layerbench's own CUDA kernels for memory-bound operations: layer norm (forward, its statistics,
// backward to x, gamma and beta), and ReLU, add and GELU with erf as vectorised elementwise
// kernels. FP32 arithmetic for every storage type; 16-byte loads and stores where the data allows
// (layer norm's row held in registers, several vectors a thread for the elementwise ops). Launch
// shapes come from logic/memory_bound_ops.hpp. C++17 (the CUDA sources' standard): no harness
// header here. Each launcher enqueues on `stream` and returns cudaGetLastError(); the pointers are
// device memory.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/logic/element_type.hpp"

namespace lb::cuda {

struct RowLaunch {
  unsigned rows = 0, threads = 0;  // one block per row, `threads` (a multiple of 32) each
  std::int64_t length = 0;         // elements per row
  // 1, 2, 4 or 8: the row held in registers, that many 16-byte vectors a thread (forward and
  // backward; logic::layer_norm_row_plan); 0: the threads stride over the row.
  int vectors_per_thread = 0;
};

// y = gamma * (x - mean) * rstd + beta per row, rstd = 1 / sqrt(biased variance + epsilon);
// gamma and beta are FP32 vectors of `length`.
cudaError_t layer_norm_forward(logic::ElementType type, RowLaunch launch, const void* x,
                               const float* gamma, const float* beta, void* y, float epsilon,
                               cudaStream_t stream);
// Each row's mean and rstd, as the forward computes them (what backward reads).
cudaError_t layer_norm_statistics(logic::ElementType type, RowLaunch launch, const void* x,
                                  float* mean, float* rstd, float epsilon, cudaStream_t stream);
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) per row, g = gamma * dy, xhat the normalised x.
cudaError_t layer_norm_backward(logic::ElementType type, RowLaunch launch, const void* x,
                                const void* dy, const float* gamma, const float* mean,
                                const float* rstd, void* dx, cudaStream_t stream);

struct ColumnLaunch {
  unsigned column_blocks = 0, row_blocks = 0;  // blocks of 32 x 8 threads
  std::int64_t rows = 0, length = 0, rows_per_block = 0;
};
// dgamma = sum over rows of dy * xhat and dbeta = sum over rows of dy (FP32 vectors of `length`),
// zeroed first on the stream: the rest of what PyTorch's layer norm backward computes beside dx.
cudaError_t layer_norm_parameter_gradients(logic::ElementType type, ColumnLaunch launch,
                                           const void* x, const void* dy, const float* mean,
                                           const float* rstd, float* dgamma, float* dbeta,
                                           cudaStream_t stream);

// out = op(a, b) over `count` elements:
//   relu_forward   y = max(x, 0), NaN propagated (a = x, b null)
//   relu_backward  dx = dy where x > 0, else 0 (a = x, b = dy)
//   add            a + b, b repeating every b_period elements (b_period = count: no broadcast)
//   gelu_forward   y = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) (a = x, b null)
//   gelu_backward  dx = dy (Phi(x) + x phi(x)) (a = x, b = dy)
// out may be a (in place). 16-byte loads and stores where a, b and out are 16-byte aligned and
// b_period splits into whole vectors, scalars otherwise and for the tail.
enum class Elementwise { relu_forward, relu_backward, add, gelu_forward, gelu_backward };
// The vectors per thread the elementwise kernel is compiled for: equal to
// logic::elementwise_vectors_per_thread (kernel_memory_bound_ops.cpp asserts it).
inline constexpr int elementwise_vectors_per_thread = 4;
struct ElementwiseLaunch {
  unsigned blocks = 0, threads = 0;
  int vectors_per_thread = 0;  // elementwise_vectors_per_thread; anything else is refused
};
cudaError_t elementwise(logic::ElementType type, Elementwise op, ElementwiseLaunch launch,
                        const void* a, const void* b, void* out, std::int64_t count,
                        std::int64_t b_period, cudaStream_t stream);

// Batch norm inference over `count` elements of `channels` channels: y = gamma (x - mean) /
// sqrt(variance + epsilon) + beta per channel (FP32 vectors of `channels`), the channel of
// element i being (i / inner) % channels (inner 1: NHWC; H x W: NCHW). The C (scale, shift)
// pairs live in shared memory: channels <= logic::batch_norm_kernel_most_channels.
cudaError_t batch_norm_inference(logic::ElementType type, ElementwiseLaunch launch, const void* x,
                                 const float* mean, const float* variance, const float* gamma,
                                 const float* beta, void* y, std::int64_t count,
                                 std::int64_t channels, std::int64_t inner, float epsilon,
                                 cudaStream_t stream);

}  // namespace lb::cuda
