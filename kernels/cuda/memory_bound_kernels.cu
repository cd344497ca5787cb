#include "kernels/cuda/memory_bound_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace lb::cuda {

namespace {

__device__ float load(const float* p, std::int64_t i) { return p[i]; }
__device__ float load(const __half* p, std::int64_t i) { return __half2float(p[i]); }
__device__ float load(const __nv_bfloat16* p, std::int64_t i) { return __bfloat162float(p[i]); }
__device__ void store(float* p, std::int64_t i, float v) { p[i] = v; }
__device__ void store(__half* p, std::int64_t i, float v) { p[i] = __float2half_rn(v); }
__device__ void store(__nv_bfloat16* p, std::int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }

// Loads in 16-byte vectors (4 floats, 8 halves): one instruction where 2-byte scalars would take
// eight, as PyTorch's vectorised elementwise and norm kernels load.
template <typename T>
struct alignas(16) Vec {
  static constexpr int width = 16 / sizeof(T);
  T v[width];
};

// Calls f(i, a[i], b[i]) (b[i] = 0 when b is null) for i = first, first + step, ... below count,
// reading a and b in 16-byte vectors where both are 16-byte aligned, scalars otherwise and for the
// tail. Each thread visits whole vectors: element order within a thread is ascending.
template <typename T, typename F>
__device__ void for_each_loaded(const T* a, const T* b, std::int64_t count, std::int64_t first,
                                std::int64_t step, F f) {
  constexpr int width = Vec<T>::width;
  const bool aligned = reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(b) % 16 == 0;
  const std::int64_t vectors = aligned ? count / width : 0;
  for (std::int64_t v = first; v < vectors; v += step) {
    const Vec<T> va = reinterpret_cast<const Vec<T>*>(a)[v];
    Vec<T> vb{};
    if (b) vb = reinterpret_cast<const Vec<T>*>(b)[v];
    for (int k = 0; k < width; ++k) f(v * width + k, load(va.v, k), b ? load(vb.v, k) : 0.0f);
  }
  for (std::int64_t i = vectors * width + first; i < count; i += step)
    f(i, load(a, i), b ? load(b, i) : 0.0f);
}

// The sum of every thread's `value` in the block, returned to every thread. blockDim.x is a
// multiple of 32 (logic::row_launch); `shared` holds one float per warp.
__device__ float block_sum(float value, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // a previous call's readers are done with `shared`
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  value = lane < blockDim.x / 32 ? shared[lane] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// Mean and rstd of one row, in two passes (the mean, then the squared deviations from it), which
// loses less than the one-pass E[x^2] - E[x]^2. The row is re-read from L1/L2, not from DRAM.
template <typename T>
__device__ float2 row_moments(const T* row, std::int64_t length, float epsilon, float* shared) {
  float sum = 0;
  for_each_loaded(row, static_cast<const T*>(nullptr), length, threadIdx.x, blockDim.x,
                  [&](std::int64_t, float x, float) { sum += x; });
  const float mean = block_sum(sum, shared) / static_cast<float>(length);
  float squares = 0;
  for_each_loaded(row, static_cast<const T*>(nullptr), length, threadIdx.x, blockDim.x,
                  [&](std::int64_t, float x, float) { squares += (x - mean) * (x - mean); });
  return make_float2(mean,
                     rsqrtf(block_sum(squares, shared) / static_cast<float>(length) + epsilon));
}

template <typename T>
__global__ void layer_norm_forward_kernel(const T* x, const float* gamma, const float* beta, T* y,
                                          std::int64_t length, float epsilon) {
  __shared__ float shared[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * length;
  const float2 m = row_moments(x + offset, length, epsilon, shared);
  for_each_loaded(x + offset, static_cast<const T*>(nullptr), length, threadIdx.x, blockDim.x,
                  [&](std::int64_t i, float xi, float) {
                    store(y + offset, i, gamma[i] * (xi - m.x) * m.y + beta[i]);
                  });
}

template <typename T>
__global__ void layer_norm_statistics_kernel(const T* x, float* mean, float* rstd,
                                             std::int64_t length, float epsilon) {
  __shared__ float shared[32];
  const float2 m =
      row_moments(x + static_cast<std::int64_t>(blockIdx.x) * length, length, epsilon, shared);
  if (threadIdx.x == 0) mean[blockIdx.x] = m.x, rstd[blockIdx.x] = m.y;
}

template <typename T>
__global__ void layer_norm_backward_kernel(const T* x, const T* dy, const float* gamma,
                                           const float* mean, const float* rstd, T* dx,
                                           std::int64_t length) {
  __shared__ float shared[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * length;
  const float mu = mean[blockIdx.x], r = rstd[blockIdx.x];
  float sum_g = 0, sum_g_xhat = 0;
  for_each_loaded(x + offset, dy + offset, length, threadIdx.x, blockDim.x,
                  [&](std::int64_t i, float xi, float dyi) {
                    const float g = gamma[i] * dyi;
                    sum_g += g;
                    sum_g_xhat += g * (xi - mu) * r;
                  });
  const float mean_g = block_sum(sum_g, shared) / static_cast<float>(length);
  const float mean_g_xhat = block_sum(sum_g_xhat, shared) / static_cast<float>(length);
  for_each_loaded(x + offset, dy + offset, length, threadIdx.x, blockDim.x,
                  [&](std::int64_t i, float xi, float dyi) {
                    const float xhat = (xi - mu) * r;
                    store(dx + offset, i, r * (gamma[i] * dyi - mean_g - xhat * mean_g_xhat));
                  });
}

// dgamma[j] = sum over rows of dy * xhat, dbeta[j] = sum over rows of dy, as PyTorch's layer norm
// backward computes them beside dx. A block of 32 x 8 threads takes 32 columns (a warp reads 32
// consecutive elements of a row) and a chunk of rows_per_block rows; its 8 partial sums per column
// meet in shared memory, and blocks of different chunks add theirs atomically into the zeroed
// dgamma and dbeta.
template <typename T>
__global__ void layer_norm_parameter_gradients_kernel(const T* x, const T* dy, const float* mean,
                                                      const float* rstd, float* dgamma,
                                                      float* dbeta, std::int64_t rows,
                                                      std::int64_t length,
                                                      std::int64_t rows_per_block) {
  __shared__ float partial_gamma[8][33], partial_beta[8][33];  // 33: no bank conflicts
  const std::int64_t column = static_cast<std::int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.y) * rows_per_block;
  const std::int64_t end_row = min(rows, first_row + rows_per_block);
  float sum_gamma = 0, sum_beta = 0;
  if (column < length)
    for (std::int64_t row = first_row + threadIdx.y; row < end_row; row += blockDim.y) {
      const float g = load(dy, row * length + column);
      sum_gamma += g * (load(x, row * length + column) - mean[row]) * rstd[row];
      sum_beta += g;
    }
  partial_gamma[threadIdx.y][threadIdx.x] = sum_gamma;
  partial_beta[threadIdx.y][threadIdx.x] = sum_beta;
  __syncthreads();
  if (threadIdx.y == 0 && column < length) {
    for (unsigned k = 1; k < blockDim.y; ++k) {
      sum_gamma += partial_gamma[k][threadIdx.x];
      sum_beta += partial_beta[k][threadIdx.x];
    }
    atomicAdd(dgamma + column, sum_gamma);
    atomicAdd(dbeta + column, sum_beta);
  }
}

constexpr float inv_sqrt2 = 0.70710678118654752f, inv_sqrt_2pi = 0.39894228040143268f;

template <typename T>
__global__ void gelu_forward_kernel(const T* x, T* y, std::int64_t count) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for_each_loaded(x, static_cast<const T*>(nullptr), count,
                  static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, step,
                  [&](std::int64_t i, float v, float) {
                    store(y, i, 0.5f * v * (1.0f + erff(v * inv_sqrt2)));
                  });
}

template <typename T>
__global__ void gelu_backward_kernel(const T* x, const T* dy, T* dx, std::int64_t count) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for_each_loaded(x, dy, count, static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                  step, [&](std::int64_t i, float v, float g) {
                    const float cdf = 0.5f * (1.0f + erff(v * inv_sqrt2)),
                                pdf = inv_sqrt_2pi * expf(-0.5f * v * v);
                    store(dx, i, g * (cdf + v * pdf));
                  });
}

// Calls `launch` with a null pointer of the storage type (for deduction); FP8 never gets here
// (logic::memory_unsupported refuses it).
template <typename Launch>
cudaError_t with_type(logic::ElementType type, Launch launch) {
  switch (type) {
    case logic::ElementType::f32:
      launch(static_cast<float*>(nullptr));
      break;
    case logic::ElementType::f16:
      launch(static_cast<__half*>(nullptr));
      break;
    case logic::ElementType::bf16:
      launch(static_cast<__nv_bfloat16*>(nullptr));
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t layer_norm_forward(logic::ElementType type, RowLaunch l, const void* x,
                               const float* gamma, const float* beta, void* y, float epsilon,
                               cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    layer_norm_forward_kernel<<<l.rows, l.threads, 0, stream>>>(
        static_cast<const T*>(x), gamma, beta, static_cast<T*>(y), l.length, epsilon);
  });
}

cudaError_t layer_norm_statistics(logic::ElementType type, RowLaunch l, const void* x, float* mean,
                                  float* rstd, float epsilon, cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    layer_norm_statistics_kernel<<<l.rows, l.threads, 0, stream>>>(static_cast<const T*>(x), mean,
                                                                   rstd, l.length, epsilon);
  });
}

cudaError_t layer_norm_backward(logic::ElementType type, RowLaunch l, const void* x, const void* dy,
                                const float* gamma, const float* mean, const float* rstd, void* dx,
                                cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    layer_norm_backward_kernel<<<l.rows, l.threads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), gamma, mean, rstd, static_cast<T*>(dx),
        l.length);
  });
}

cudaError_t layer_norm_parameter_gradients(logic::ElementType type, ColumnLaunch l, const void* x,
                                           const void* dy, const float* mean, const float* rstd,
                                           float* dgamma, float* dbeta, cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(l.length) * sizeof(float);
  if (const cudaError_t e = cudaMemsetAsync(dgamma, 0, bytes, stream); e != cudaSuccess) return e;
  if (const cudaError_t e = cudaMemsetAsync(dbeta, 0, bytes, stream); e != cudaSuccess) return e;
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    layer_norm_parameter_gradients_kernel<<<dim3(l.column_blocks, l.row_blocks), dim3(32, 8), 0,
                                            stream>>>(static_cast<const T*>(x),
                                                      static_cast<const T*>(dy), mean, rstd, dgamma,
                                                      dbeta, l.rows, l.length, l.rows_per_block);
  });
}

cudaError_t gelu_forward(logic::ElementType type, unsigned blocks, unsigned threads, const void* x,
                         void* y, std::int64_t count, cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    gelu_forward_kernel<<<blocks, threads, 0, stream>>>(static_cast<const T*>(x),
                                                        static_cast<T*>(y), count);
  });
}

cudaError_t gelu_backward(logic::ElementType type, unsigned blocks, unsigned threads, const void* x,
                          const void* dy, void* dx, std::int64_t count, cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    gelu_backward_kernel<<<blocks, threads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), count);
  });
}

}  // namespace lb::cuda
