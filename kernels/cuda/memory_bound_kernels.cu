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

// FP32 gamma or beta for the `width` elements of vector v of a row, in float4 loads (a row of
// whole 16-byte T vectors has a multiple of 4 elements, and cudaMalloc aligns the vectors).
template <int width>
__device__ void load_parameters(const float* p, std::int64_t v, float (&out)[width]) {
  const float4* q = reinterpret_cast<const float4*>(p + v * width);
#pragma unroll
  for (int k = 0; k < width / 4; ++k) {
    const float4 f = q[k];
    out[4 * k] = f.x, out[4 * k + 1] = f.y, out[4 * k + 2] = f.z, out[4 * k + 3] = f.w;
  }
}

// The row in registers: thread t holds vectors t, t + blockDim.x, ... (per_thread of them, those
// past the row's end zero), so x is read from memory once and the two passes of the mean and the
// squared deviations run over registers.
template <typename T, int per_thread>
__global__ void layer_norm_forward_registers_kernel(const T* x, const float* gamma,
                                                    const float* beta, T* y, std::int64_t length,
                                                    float epsilon) {
  constexpr int width = Vec<T>::width;
  __shared__ float shared[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * length,
                     vectors = length / width;
  const auto* row = reinterpret_cast<const Vec<T>*>(x + offset);
  float v[per_thread][width];
  float sum = 0;
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(p) * blockDim.x;
    Vec<T> loaded{};
    if (i < vectors) loaded = row[i];
#pragma unroll
    for (int k = 0; k < width; ++k) sum += v[p][k] = i < vectors ? load(loaded.v, k) : 0.0f;
  }
  const float n = static_cast<float>(length);
  const float mean = block_sum(sum, shared) / n;
  float squares = 0;
#pragma unroll
  for (int p = 0; p < per_thread; ++p)
    if (threadIdx.x + static_cast<std::int64_t>(p) * blockDim.x < vectors)
#pragma unroll
      for (int k = 0; k < width; ++k) squares += (v[p][k] - mean) * (v[p][k] - mean);
  const float rstd = rsqrtf(block_sum(squares, shared) / n + epsilon);
  auto* out = reinterpret_cast<Vec<T>*>(y + offset);
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(p) * blockDim.x;
    if (i >= vectors) continue;
    float g[width], b[width];
    load_parameters(gamma, i, g);
    load_parameters(beta, i, b);
    Vec<T> result;
#pragma unroll
    for (int k = 0; k < width; ++k) store(result.v, k, g[k] * (v[p][k] - mean) * rstd + b[k]);
    out[i] = result;
  }
}

// Backward with x and dy of the row in registers: one read of each, the two sums in one pass.
template <typename T, int per_thread>
__global__ void layer_norm_backward_registers_kernel(const T* x, const T* dy, const float* gamma,
                                                     const float* mean, const float* rstd, T* dx,
                                                     std::int64_t length) {
  constexpr int width = Vec<T>::width;
  __shared__ float shared[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * length,
                     vectors = length / width;
  const auto* x_row = reinterpret_cast<const Vec<T>*>(x + offset);
  const auto* dy_row = reinterpret_cast<const Vec<T>*>(dy + offset);
  const float mu = mean[blockIdx.x], r = rstd[blockIdx.x];
  float xhat[per_thread][width], g[per_thread][width];  // g = gamma * dy
  float sum_g = 0, sum_g_xhat = 0;
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(p) * blockDim.x;
    Vec<T> vx{}, vdy{};
    float w[width] = {};
    if (i < vectors) vx = x_row[i], vdy = dy_row[i], load_parameters(gamma, i, w);
#pragma unroll
    for (int k = 0; k < width; ++k) {
      xhat[p][k] = (load(vx.v, k) - mu) * r;
      g[p][k] = i < vectors ? w[k] * load(vdy.v, k) : 0.0f;
      sum_g += g[p][k];
      sum_g_xhat += g[p][k] * xhat[p][k];
    }
  }
  const float n = static_cast<float>(length);
  const float mean_g = block_sum(sum_g, shared) / n;
  const float mean_g_xhat = block_sum(sum_g_xhat, shared) / n;
  auto* out = reinterpret_cast<Vec<T>*>(dx + offset);
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(p) * blockDim.x;
    if (i >= vectors) continue;
    Vec<T> result;
#pragma unroll
    for (int k = 0; k < width; ++k)
      store(result.v, k, r * (g[p][k] - mean_g - xhat[p][k] * mean_g_xhat));
    out[i] = result;
  }
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

// out = f(a, b) elementwise. b (null for unary ops) repeats every b_period elements: add's
// batch-1 operand broadcast over the batch; b_period = count otherwise.
template <Elementwise op>
__device__ float apply(float a, float b) {
  if constexpr (op == Elementwise::relu_forward) {
    return a > 0.0f || a != a ? a : 0.0f;                   // NaN propagates, as in the frameworks
  } else if constexpr (op == Elementwise::relu_backward) {  // a = x, b = dy
    return a > 0.0f ? b : 0.0f;
  } else if constexpr (op == Elementwise::add) {
    return a + b;
  } else if constexpr (op == Elementwise::gelu_forward) {
    return 0.5f * a * (1.0f + erff(a * inv_sqrt2));
  } else {  // gelu_backward: a = x, b = dy
    const float cdf = 0.5f * (1.0f + erff(a * inv_sqrt2)), pdf = inv_sqrt_2pi * expf(-0.5f * a * a);
    return b * (cdf + a * pdf);
  }
}

// A grid-stride loop in 16-byte vectors, per_thread of them an iteration: all their loads issue
// before the first store, so each thread keeps several 16-byte requests in flight. The tail
// (count % width), or everything when `vectors` is false (unaligned or a period that splits a
// vector), runs in scalars.
template <Elementwise op, typename T, int per_thread>
__global__ void elementwise_kernel(const T* a, const T* b, T* out, std::int64_t count,
                                   std::int64_t b_period, bool vectors) {
  constexpr int width = Vec<T>::width;
  const std::int64_t vector_count = vectors ? count / width : 0;
  const std::int64_t b_vectors = b_period / width;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const auto* va = reinterpret_cast<const Vec<T>*>(a);
  const auto* vb = reinterpret_cast<const Vec<T>*>(b);
  auto* vo = reinterpret_cast<Vec<T>*>(out);
  for (std::int64_t first =
           static_cast<std::int64_t>(blockIdx.x) * blockDim.x * per_thread + threadIdx.x;
       first < vector_count; first += threads * per_thread) {
    Vec<T> x[per_thread], y[per_thread];
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const std::int64_t i = first + static_cast<std::int64_t>(p) * blockDim.x;
      if (i < vector_count) {
        x[p] = va[i];
        if (b) y[p] = vb[b_vectors == vector_count ? i : i % b_vectors];
      }
    }
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const std::int64_t i = first + static_cast<std::int64_t>(p) * blockDim.x;
      if (i >= vector_count) continue;
      Vec<T> r;
#pragma unroll
      for (int k = 0; k < width; ++k)
        store(r.v, k, apply<op>(load(x[p].v, k), b ? load(y[p].v, k) : 0.0f));
      vo[i] = r;
    }
  }
  for (std::int64_t i =
           vector_count * width + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += threads)
    store(out, i, apply<op>(load(a, i), b ? load(b, b_period == count ? i : i % b_period) : 0.0f));
}

// Batch norm inference, y = scale[c] x + shift[c]: each block first turns the C means, variances,
// gammas and betas into (scale, shift) pairs in shared memory, so the grid-stride loop reads one
// pair per element from there. Channel of element i: (i / inner) % channels, inner = 1 for NHWC,
// H x W for NCHW. A 16-byte vector holds consecutive channels (NHWC, channels % width == 0) or one
// channel (NCHW, inner % width == 0); `vectors` is false otherwise and everything is scalar.
template <typename T, int per_thread>
__global__ void batch_norm_inference_kernel(const T* x, const float* mean, const float* variance,
                                            const float* gamma, const float* beta, T* y,
                                            std::int64_t count, std::int64_t channels,
                                            std::int64_t inner, float epsilon, bool vectors) {
  extern __shared__ float2 scale_shift[];
  for (std::int64_t c = threadIdx.x; c < channels; c += blockDim.x) {
    const float scale = gamma[c] * rsqrtf(variance[c] + epsilon);
    scale_shift[c] = make_float2(scale, beta[c] - mean[c] * scale);
  }
  __syncthreads();
  constexpr int width = Vec<T>::width;
  const std::int64_t vector_count = vectors ? count / width : 0;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const auto* vx = reinterpret_cast<const Vec<T>*>(x);
  auto* vy = reinterpret_cast<Vec<T>*>(y);
  for (std::int64_t first =
           static_cast<std::int64_t>(blockIdx.x) * blockDim.x * per_thread + threadIdx.x;
       first < vector_count; first += threads * per_thread) {
    Vec<T> in[per_thread];
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const std::int64_t i = first + static_cast<std::int64_t>(p) * blockDim.x;
      if (i < vector_count) in[p] = vx[i];
    }
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const std::int64_t i = first + static_cast<std::int64_t>(p) * blockDim.x;
      if (i >= vector_count) continue;
      const std::int64_t c = (i * width / inner) % channels;
      Vec<T> out;
#pragma unroll
      for (int k = 0; k < width; ++k) {
        const float2 f = scale_shift[inner == 1 ? c + k : c];
        store(out.v, k, f.x * load(in[p].v, k) + f.y);
      }
      vy[i] = out;
    }
  }
  for (std::int64_t i =
           vector_count * width + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += threads) {
    const float2 f = scale_shift[(i / inner) % channels];
    store(y, i, f.x * load(x, i) + f.y);
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

// Calls `launch` with std::integral_constant<int, n> for the row plan's n vectors a thread (1, 2,
// 4 or 8: the register kernels' instances); false, launching nothing, for any other n.
template <class Launch>
bool with_vectors_per_thread(int n, Launch&& launch) {
  switch (n) {
    case 1:
      launch(std::integral_constant<int, 1>{});
      return true;
    case 2:
      launch(std::integral_constant<int, 2>{});
      return true;
    case 4:
      launch(std::integral_constant<int, 4>{});
      return true;
    case 8:
      launch(std::integral_constant<int, 8>{});
      return true;
    default:
      return false;
  }
}

cudaError_t layer_norm_forward(logic::ElementType type, RowLaunch l, const void* x,
                               const float* gamma, const float* beta, void* y, float epsilon,
                               cudaStream_t stream) {
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    const auto* tx = static_cast<const T*>(x);
    auto* ty = static_cast<T*>(y);
    const bool in_registers = with_vectors_per_thread(l.vectors_per_thread, [&](auto n) {
      layer_norm_forward_registers_kernel<T, decltype(n)::value>
          <<<l.rows, l.threads, 0, stream>>>(tx, gamma, beta, ty, l.length, epsilon);
    });
    if (!in_registers)
      layer_norm_forward_kernel<<<l.rows, l.threads, 0, stream>>>(tx, gamma, beta, ty, l.length,
                                                                  epsilon);
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
    const auto* tx = static_cast<const T*>(x);
    const auto* tdy = static_cast<const T*>(dy);
    auto* tdx = static_cast<T*>(dx);
    const bool in_registers = with_vectors_per_thread(l.vectors_per_thread, [&](auto n) {
      layer_norm_backward_registers_kernel<T, decltype(n)::value>
          <<<l.rows, l.threads, 0, stream>>>(tx, tdy, gamma, mean, rstd, tdx, l.length);
    });
    if (!in_registers)
      layer_norm_backward_kernel<<<l.rows, l.threads, 0, stream>>>(tx, tdy, gamma, mean, rstd, tdx,
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

cudaError_t batch_norm_inference(logic::ElementType type, ElementwiseLaunch l, const void* x,
                                 const float* mean, const float* variance, const float* gamma,
                                 const float* beta, void* y, std::int64_t count,
                                 std::int64_t channels, std::int64_t inner, float epsilon,
                                 cudaStream_t stream) {
  constexpr int per_thread = elementwise_vectors_per_thread;
  if (l.vectors_per_thread != per_thread || channels <= 0 || inner <= 0)
    return cudaErrorInvalidValue;
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    constexpr int width = Vec<T>::width;
    const bool vectors = reinterpret_cast<std::uintptr_t>(x) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(y) % 16 == 0 &&
                         (inner == 1 ? channels % width == 0 : inner % width == 0);
    batch_norm_inference_kernel<T, per_thread>
        <<<l.blocks, l.threads, static_cast<std::size_t>(channels) * sizeof(float2), stream>>>(
            static_cast<const T*>(x), mean, variance, gamma, beta, static_cast<T*>(y), count,
            channels, inner, epsilon, vectors);
  });
}

cudaError_t elementwise(logic::ElementType type, Elementwise op, ElementwiseLaunch l, const void* a,
                        const void* b, void* out, std::int64_t count, std::int64_t b_period,
                        cudaStream_t stream) {
  constexpr int per_thread = elementwise_vectors_per_thread;
  if (l.vectors_per_thread != per_thread) return cudaErrorInvalidValue;
  return with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    constexpr int width = Vec<T>::width;
    const bool vectors = reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(b) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                         (b == nullptr || b_period == count || b_period % width == 0);
    const auto* ta = static_cast<const T*>(a);
    const auto* tb = static_cast<const T*>(b);
    auto* to = static_cast<T*>(out);
    switch (op) {
#define LB_ELEMENTWISE(name)                                                        \
  case Elementwise::name:                                                           \
    elementwise_kernel<Elementwise::name, T, per_thread>                            \
        <<<l.blocks, l.threads, 0, stream>>>(ta, tb, to, count, b_period, vectors); \
    break;
      LB_ELEMENTWISE(relu_forward)
      LB_ELEMENTWISE(relu_backward)
      LB_ELEMENTWISE(add)
      LB_ELEMENTWISE(gelu_forward)
      LB_ELEMENTWISE(gelu_backward)
#undef LB_ELEMENTWISE
    }
  });
}

}  // namespace lb::cuda
