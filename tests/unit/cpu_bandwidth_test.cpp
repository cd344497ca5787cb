// The memory-bandwidth probe: its array sizing, byte count, split among threads and kernel, and
// one real (small) measurement.
#include "harness/measure/cpu_bandwidth.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace lb {
namespace {

TEST(CpuBandwidth, ArraysAreFourTimesTheCacheUpToTheCap) {
  EXPECT_EQ(bandwidth_array_bytes(32ull << 20), 128ull << 20);
  EXPECT_EQ(bandwidth_array_bytes(256ull << 20), max_bandwidth_array_bytes);  // 4x would be 1 GiB
  EXPECT_EQ(bandwidth_array_bytes(1ull << 30), max_bandwidth_array_bytes);
  EXPECT_EQ(bandwidth_array_bytes(0), max_bandwidth_array_bytes);  // unknown: the cap
}

TEST(CpuBandwidth, TriadCountsTwoReadsAndOneWriteOfEightBytes) {
  EXPECT_DOUBLE_EQ(triad_bytes(1), 24.0);
  EXPECT_DOUBLE_EQ(triad_bytes(1000), 24000.0);
}

TEST(CpuBandwidth, ThreadRangesCoverEveryElementOnceAndEvenly) {
  for (std::uint64_t elements : {0ull, 1ull, 7ull, 64ull, 1001ull})
    for (int threads : {1, 2, 3, 8}) {
      std::uint64_t next = 0, smallest = elements, largest = 0;
      for (int t = 0; t < threads; ++t) {
        const ElementRange r = thread_range(elements, threads, t);
        EXPECT_EQ(r.begin, next) << elements << " elements, thread " << t << " of " << threads;
        EXPECT_LE(r.begin, r.end);
        next = r.end;
        smallest = std::min(smallest, r.end - r.begin),
        largest = std::max(largest, r.end - r.begin);
      }
      EXPECT_EQ(next, elements) << threads << " threads";
      EXPECT_LE(largest - smallest, 1u) << elements << " elements, " << threads << " threads";
    }
}

TEST(CpuBandwidth, TriadWritesItsRangeOnly) {
  std::vector<double> a(6, -1.0), b{1, 2, 3, 4, 5, 6}, c{10, 20, 30, 40, 50, 60};
  triad(a.data(), b.data(), c.data(), 0.5, {1, 4});
  EXPECT_EQ(a, (std::vector<double>{-1, 2 + 10, 3 + 15, 4 + 20, -1, -1}));
}

TEST(CpuBandwidth, MeasuresAPositiveRateAndSaysHow) {
  CpuBandwidthOptions options;
  options.threads = 2, options.array_bytes = 4ull << 20, options.repetitions = 3;
  const CpuBandwidth bw = measure_cpu_bandwidth(options);
  EXPECT_GT(bw.gbps, 0.0);
  EXPECT_EQ(bw.threads, 2);
  EXPECT_EQ(bw.repetitions, 3);
  EXPECT_EQ(bw.array_bytes, 4ull << 20);
  EXPECT_NE(bw.method.find("triad"), std::string::npos) << bw.method;
  EXPECT_NE(bw.method.find("4 MiB (as asked)"), std::string::npos) << bw.method;
  EXPECT_NE(bw.method.find("2 threads, median of 3 passes"), std::string::npos) << bw.method;
}

}  // namespace
}  // namespace lb
