#include "kernels/cuda/memory_bound_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace lb::cuda {

namespace {

__device__ float load(const float* p, std::int64_t i) { return p[i]; }
__device__ float load(const __half* p, std::int64_t i) { return __half2float(p[i]); }
__device__ float load(const __nv_bfloat16* p, std::int64_t i) { return __bfloat162float(p[i]); }
__device__ void store(float* p, std::int64_t i, float v) { p[i] = v; }
__device__ void store(__half* p, std::int64_t i, float v) { p[i] = __float2half_rn(v); }
__device__ void store(__nv_bfloat16* p, std::int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }

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
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) sum += load(row, i);
  const float mean = block_sum(sum, shared) / static_cast<float>(length);
  float squares = 0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const float d = load(row, i) - mean;
    squares += d * d;
  }
  return make_float2(mean,
                     rsqrtf(block_sum(squares, shared) / static_cast<float>(length) + epsilon));
}

template <typename T>
__global__ void layer_norm_forward_kernel(const T* x, const float* gamma, const float* beta, T* y,
                                          std::int64_t length, float epsilon) {
  __shared__ float shared[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * length;
  const float2 m = row_moments(x + offset, length, epsilon, shared);
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x)
    store(y + offset, i, gamma[i] * (load(x + offset, i) - m.x) * m.y + beta[i]);
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
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const float g = gamma[i] * load(dy + offset, i);
    sum_g += g;
    sum_g_xhat += g * (load(x + offset, i) - mu) * r;
  }
  const float mean_g = block_sum(sum_g, shared) / static_cast<float>(length);
  const float mean_g_xhat = block_sum(sum_g_xhat, shared) / static_cast<float>(length);
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const float xhat = (load(x + offset, i) - mu) * r;
    store(dx + offset, i, r * (gamma[i] * load(dy + offset, i) - mean_g - xhat * mean_g_xhat));
  }
}

constexpr float inv_sqrt2 = 0.70710678118654752f, inv_sqrt_2pi = 0.39894228040143268f;

template <typename T>
__global__ void gelu_forward_kernel(const T* x, T* y, std::int64_t count) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const float v = load(x, i);
    store(y, i, 0.5f * v * (1.0f + erff(v * inv_sqrt2)));
  }
}

template <typename T>
__global__ void gelu_backward_kernel(const T* x, const T* dy, T* dx, std::int64_t count) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const float v = load(x, i);
    const float cdf = 0.5f * (1.0f + erff(v * inv_sqrt2)), pdf = inv_sqrt_2pi * expf(-0.5f * v * v);
    store(dx, i, load(dy, i) * (cdf + v * pdf));
  }
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
