#pragma once
// The CPU's FP32 multiply-add peak, measured: every thread runs independent chains of fused
// multiply-adds held in registers, so nothing but the FMA units limits the rate. Used by the
// doctor (reported) and by `run` (the CPU's fp32 peak in the results file's context, from which
// a CPU model sum's fraction of peak is computed).
//
// FLOPs are counted as 2 per multiply-add and lane:
//   AVX-512F kernel: FLOPs = 2 x FMA instructions x 16 lanes (one zmm holds 16 floats), where
//                    the CPU and OS run AVX-512
//   AVX2+FMA kernel: FLOPs = 2 x FMA instructions x 8 lanes (one ymm holds 8 floats), else
//   portable kernel: FLOPs = 2 x multiply-adds (scalar code; the compiler may vectorise it,
//                    which changes the speed, not the count)
// GFLOP/s = threads x FLOPs per thread / wall time of the slowest thread, median of repetitions.
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
