#pragma once
// The CPU's FP32 multiply-add peak, measured with independent FMA chains held in registers on
// every thread, for the doctor and the results file's context (a CPU sum's fraction of peak).
// The kernels, how FLOPs are counted and the formula of GFLOP/s: docs/measuring.md, "Roofs".
#include <cstdint>
#include <string>

namespace lb {

struct CpuPeak {
  double gflops = 0;  // median over repetitions
  int threads = 0;
  int repetitions = 0;
  std::int64_t iterations = 0;  // loop iterations per thread in each repetition
  std::string method;           // how it was measured, with the FLOP formula
};

struct CpuPeakOptions {
  int threads = 0;               // 0 = every logical processor
  double seconds_per_rep = 0.2;  // target duration of one repetition, per thread
  int repetitions = 3;
  bool allow_simd = true;  // false forces the portable kernel (tests, comparisons)
};

CpuPeak measure_cpu_peak(const CpuPeakOptions& options = {});

// One thread, one timed run of the kernel: the wall time of `iterations` loop iterations and
// the FLOPs they perform. Exposed so tests can check the work really scales with the count.
struct FmaRun {
  double seconds = 0;
  double flops = 0;
};
FmaRun time_fma_kernel(std::int64_t iterations, bool allow_simd = true);

}  // namespace lb
