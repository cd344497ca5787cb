#pragma once
// layerbench's own CUDA kernels for the memory-bound operations cuDNN's legacy API lacks: layer
// norm (forward, its statistics, backward to x, gamma and beta) and GELU with erf (forward,
// backward). Plain, untuned kernels: FP32 arithmetic for every storage type, one block per row for
// layer norm with a block reduction, a grid-stride loop for GELU, 16-byte vector loads. Launch
// shapes come from logic/memory_ops.hpp. C++17 (the CUDA sources' standard): no harness header
// here. Each launcher enqueues on `stream` and returns cudaGetLastError(); the pointers are device
// memory.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/logic/element_type.hpp"

namespace lb::cuda {

struct RowLaunch {
  unsigned rows = 0, threads = 0;  // one block per row, `threads` (a multiple of 32) each
  std::int64_t length = 0;         // elements per row
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

// y = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) over `count` elements, and its backward
// dx = dy * (Phi(x) + x phi(x)).
cudaError_t gelu_forward(logic::ElementType type, unsigned blocks, unsigned threads, const void* x,
                         void* y, std::int64_t count, cudaStream_t stream);
cudaError_t gelu_backward(logic::ElementType type, unsigned blocks, unsigned threads, const void* x,
                          const void* dy, void* dx, std::int64_t count, cudaStream_t stream);

}  // namespace lb::cuda
