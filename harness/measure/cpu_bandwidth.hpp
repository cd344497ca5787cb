#pragma once
// The CPU's memory bandwidth as STREAM's triad measures it (J. McCalpin, stream.c), for the
// results file's context and the report's memory roof. The kernel, what it counts and the
// formula of GB/s: docs/measuring.md, "Roofs".
#include <cstdint>
#include <string>

namespace lb {

struct CpuBandwidth {
  double gbps = 0;  // median over repetitions
  int threads = 0;
  int repetitions = 0;
  std::uint64_t array_bytes = 0;  // each of the three arrays
  std::string method;             // how it was measured, with the byte count
};

struct CpuBandwidthOptions {
  int threads = 0;                // 0 = every logical processor
  std::uint64_t array_bytes = 0;  // 0 = bandwidth_array_bytes(the last-level cache)
  int repetitions = 5;
};

// Throws std::bad_alloc when the three arrays do not fit.
CpuBandwidth measure_cpu_bandwidth(const CpuBandwidthOptions& options = {});

// Pure parts, tested on their own.

// Bytes of each array for a last-level cache of `llc_bytes` (0 = unknown): 4 x the cache,
// at most max_bandwidth_array_bytes (so the three arrays stay within 3 GiB), which is also
// taken when the cache size is unknown.
constexpr std::uint64_t max_bandwidth_array_bytes = 1ull << 30;
std::uint64_t bandwidth_array_bytes(std::uint64_t llc_bytes);

// Bytes one triad pass over `elements` counts: 3 x sizeof(double) x elements.
double triad_bytes(std::uint64_t elements);

// Thread t's part [begin, end) of `elements`, for `threads` threads: contiguous parts that
// cover every element once, their sizes differing by at most one.
struct ElementRange {
  std::uint64_t begin = 0, end = 0;
};
ElementRange thread_range(std::uint64_t elements, int threads, int t);

// a[i] = b[i] + scalar * c[i] for i in `range`.
void triad(double* a, const double* b, const double* c, double scalar, ElementRange range);

}  // namespace lb
