#include "harness/measure/cpu_peak.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "harness/measure/parallel_timer.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/stats.hpp"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(_MSC_VER))
#define LB_FMA_SIMD 1
#include <immintrin.h>
#if defined(__GNUC__)
#define LB_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
#define LB_TARGET_AVX512F __attribute__((target("avx512f")))
#else
#define LB_TARGET_AVX2_FMA  // MSVC emits AVX2 and AVX-512 intrinsics without a target switch
#define LB_TARGET_AVX512F
#endif
#endif

namespace lb {
namespace {

// The FMA units stay busy when there are at least latency x ports independent chains. Intel's
// and AMD's optimization manuals give 4-5 cycles of FMA latency and two FMA ports for current
// x86 cores, so 8-10 chains; 12 is a chosen margin that still fits the 16 ymm registers.
constexpr int kChains = 12;

// The kernels, widest last: the peak is the widest vectors' the CPU and OS run, since a
// narrower kernel's peak is one the libraries exceed (docs/measuring.md, "Roofs").
enum class Kernel { portable, avx2, avx512 };
int lanes(Kernel k) { return k == Kernel::avx512 ? 16 : k == Kernel::avx2 ? 8 : 1; }

// acc = acc * m + a with m just below 1 converges to a / (1 - m): values stay normal (no
// overflow, no denormal slow paths) however long the loop runs.
constexpr float kMul = 0.999999f;
constexpr float kAdd = 1e-6f;

using Clock = std::chrono::steady_clock;

// Results are summed into this so the compiler cannot drop the chains as dead code.
std::atomic<float> g_sink{0.0f};

#ifdef LB_FMA_SIMD
LB_TARGET_AVX2_FMA float fma_chains_avx2(std::int64_t iterations, float seed) {
  __m256 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm256_set1_ps(seed + static_cast<float>(k));
  const __m256 mul = _mm256_set1_ps(kMul), add = _mm256_set1_ps(kAdd);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], mul, add);
  }
  __m256 total = acc[0];
  for (int k = 1; k < kChains; ++k) total = _mm256_add_ps(total, acc[k]);
  alignas(32) float floats[8];
  _mm256_store_ps(floats, total);
  float sum = 0;
  for (float v : floats) sum += v;
  return sum;
}

LB_TARGET_AVX512F float fma_chains_avx512(std::int64_t iterations, float seed) {
  __m512 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm512_set1_ps(seed + static_cast<float>(k));
  const __m512 mul = _mm512_set1_ps(kMul), add = _mm512_set1_ps(kAdd);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], mul, add);
  }
  __m512 total = acc[0];
  for (int k = 1; k < kChains; ++k) total = _mm512_add_ps(total, acc[k]);
  alignas(64) float floats[16];
  _mm512_store_ps(floats, total);
  float sum = 0;
  for (float v : floats) sum += v;
  return sum;
}
#endif

float fma_chains_portable(std::int64_t iterations, float seed) {
  float acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = seed + static_cast<float>(k);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * kMul + kAdd;
  }
  float sum = 0;
  for (float v : acc) sum += v;
  return sum;
}

Kernel widest_kernel(bool allow_simd) {
#ifdef LB_FMA_SIMD
  static const Kernel widest = [] {
    const auto f = platform::cpu_features();
    return f.avx512f ? Kernel::avx512 : f.avx2 && f.fma ? Kernel::avx2 : Kernel::portable;
  }();
  return allow_simd ? widest : Kernel::portable;
#else
  (void)allow_simd;
  return Kernel::portable;
#endif
}

double flops_per_iteration(Kernel kernel) { return 2.0 * kChains * lanes(kernel); }

float run_kernel(std::int64_t iterations, Kernel kernel) {
  const float seed = 1.0f + static_cast<float>(iterations % 7);  // unknown at compile time
#ifdef LB_FMA_SIMD
  if (kernel == Kernel::avx512) return fma_chains_avx512(iterations, seed);
  if (kernel == Kernel::avx2) return fma_chains_avx2(iterations, seed);
#endif
  return fma_chains_portable(iterations, seed);
}

std::string kernel_text(Kernel kernel) {
  const std::string chains = std::to_string(kChains);
  switch (kernel) {
    case Kernel::avx512:
      return "AVX-512F, " + chains +
             " independent zmm FMA chains per thread, FLOPs = 2 x FMAs x 16 lanes";
    case Kernel::avx2:
      return "AVX2+FMA, " + chains +
             " independent ymm FMA chains per thread, FLOPs = 2 x FMAs x 8 lanes";
    case Kernel::portable:
      break;
  }
  return "portable C++, " + chains +
         " independent multiply-add chains per thread, FLOPs = 2 x multiply-adds";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double time_threads(int threads, std::int64_t iterations, Kernel kernel) {
  return time_on_threads(threads, [&](int) {
    const float r = run_kernel(iterations, kernel);
    float expected = g_sink.load();
    while (!g_sink.compare_exchange_weak(expected, expected + r)) {
    }
  });
}

// Iterations that take about `seconds` on one thread: double until a run lasts 20 ms, then scale.
std::int64_t calibrate(double seconds, bool allow_simd) {
  std::int64_t iterations = 1 << 12;
  for (;;) {
    const double t = time_fma_kernel(iterations, allow_simd).seconds;
    if (t >= 0.02) return std::max<std::int64_t>(1, std::llround(iterations * seconds / t));
    iterations *= 2;
  }
}

}  // namespace

FmaRun time_fma_kernel(std::int64_t iterations, bool allow_simd) {
  const Kernel kernel = widest_kernel(allow_simd);
  const auto start = Clock::now();
  const float r = run_kernel(iterations, kernel);
  FmaRun run{seconds_since(start), flops_per_iteration(kernel) * static_cast<double>(iterations)};
  g_sink.store(g_sink.load() + r);
  return run;
}

CpuPeak measure_cpu_peak(const CpuPeakOptions& options) {
  const Kernel kernel = widest_kernel(options.allow_simd);
  CpuPeak peak;
  peak.threads = options.threads > 0 ? options.threads : platform::cpu_features().threads;
  peak.threads = std::max(peak.threads, 1);
  peak.repetitions = std::max(options.repetitions, 1);
  peak.iterations = calibrate(options.seconds_per_rep, options.allow_simd);
  time_threads(peak.threads, peak.iterations / 10 + 1, kernel);  // warm-up: wake cores, clocks up

  const double flops =
      peak.threads * flops_per_iteration(kernel) * static_cast<double>(peak.iterations);
  std::vector<double> gflops;
  for (int r = 0; r < peak.repetitions; ++r)
    gflops.push_back(flops / time_threads(peak.threads, peak.iterations, kernel) / 1e9);
  peak.gflops = summarize(gflops).median_s;  // a median of rates: the field's unit is not seconds

  peak.method = kernel_text(kernel) + ", " + std::to_string(peak.threads) + " threads, median of " +
                std::to_string(peak.repetitions) + " runs";
  return peak;
}

}  // namespace lb
