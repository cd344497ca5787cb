// The FMA microbenchmark measures something real: positive, finite, and more work takes longer.
#include "harness/measure/cpu_peak.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

#include "harness/os/platform.hpp"

namespace lb {
namespace {

// Fastest of a few runs, so one preempted run on a shared machine does not decide the test.
double fastest(std::int64_t iterations, bool simd) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) best = std::min(best, time_fma_kernel(iterations, simd).seconds);
  return best;
}

TEST(CpuPeak, MeasuresAPositiveFiniteRate) {
  CpuPeakOptions options;
  options.threads = 1;
  options.seconds_per_rep = 0.05;
  const CpuPeak peak = measure_cpu_peak(options);
  EXPECT_GT(peak.gflops, 0);
  EXPECT_TRUE(std::isfinite(peak.gflops));
  EXPECT_EQ(peak.threads, 1);
  EXPECT_EQ(peak.repetitions, 3);
  EXPECT_GT(peak.iterations, 0);
  EXPECT_NE(peak.method.find("FLOPs = 2 x"), std::string::npos) << peak.method;
}

TEST(CpuPeak, DefaultUsesEveryThread) {
  CpuPeakOptions options;
  options.seconds_per_rep = 0.02;
  options.repetitions = 1;
  const CpuPeak peak = measure_cpu_peak(options);
  // hardware_concurrency() may answer 0 (unknown); the measurement then runs one thread.
  EXPECT_EQ(peak.threads, std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  EXPECT_NE(peak.method.find(std::to_string(peak.threads) + " threads"), std::string::npos);
}

TEST(CpuPeak, FlopsAreCountedPerIteration) {
  for (bool simd : {true, false}) {
    const double one = time_fma_kernel(1000, simd).flops;
    EXPECT_GT(one, 0);
    EXPECT_DOUBLE_EQ(time_fma_kernel(4000, simd).flops, 4 * one);
  }
  // The portable kernel counts one lane per multiply-add: 2 FLOPs x 12 chains per iteration.
  EXPECT_DOUBLE_EQ(time_fma_kernel(1000, false).flops, 2.0 * 12 * 1000);
}

TEST(CpuPeak, MoreWorkTakesMoreTime) {
  for (bool simd : {true, false}) {
    // Size the small run to about 10 ms on this machine, then compare with 4x the work.
    std::int64_t n = 1 << 14;
    while (time_fma_kernel(n, simd).seconds < 0.01) n *= 2;
    EXPECT_GT(fastest(4 * n, simd), fastest(n, simd)) << (simd ? "SIMD" : "portable") << " kernel";
  }
}

TEST(CpuPeak, PortableKernelSaysSo) {
  CpuPeakOptions options;
  options.threads = 1;
  options.seconds_per_rep = 0.02;
  options.repetitions = 1;
  options.allow_simd = false;
  EXPECT_NE(measure_cpu_peak(options).method.find("portable"), std::string::npos);
}

// The peak is the widest vectors' the CPU runs: AVX2's on an AVX-512 CPU left oneDNN's GEMMs
// at "170% of peak". FLOPs per iteration: 2 x 12 chains x the lanes of the kernel named.
TEST(CpuPeak, WidestVectorsTheCpuRuns) {
  CpuPeakOptions options;
  options.threads = 1;
  options.seconds_per_rep = 0.02;
  options.repetitions = 1;
  const std::string method = measure_cpu_peak(options).method;
  const auto features = platform::cpu_features();
  const double flops = time_fma_kernel(1000).flops;
#if defined(__x86_64__) || defined(_M_X64)
  if (features.avx512f) {
    EXPECT_NE(method.find("AVX-512F"), std::string::npos) << method;
    EXPECT_DOUBLE_EQ(flops, 2.0 * 12 * 16 * 1000);
  } else if (features.avx2 && features.fma) {
    EXPECT_NE(method.find("AVX2+FMA"), std::string::npos) << method;
    EXPECT_DOUBLE_EQ(flops, 2.0 * 12 * 8 * 1000);
  } else {
    EXPECT_NE(method.find("portable"), std::string::npos) << method;
  }
#else
  EXPECT_NE(method.find("portable"), std::string::npos) << method;
  EXPECT_DOUBLE_EQ(flops, 2.0 * 12 * 1000);
#endif
}

}  // namespace
}  // namespace lb
