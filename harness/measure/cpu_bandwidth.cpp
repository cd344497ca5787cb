#include "harness/measure/cpu_bandwidth.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "harness/measure/host_buffers.hpp"
#include "harness/measure/parallel_timer.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/stats.hpp"

namespace lb {

std::uint64_t bandwidth_array_bytes(std::uint64_t llc_bytes) {
  if (llc_bytes == 0) return max_bandwidth_array_bytes;
  return std::min(4 * llc_bytes, max_bandwidth_array_bytes);
}

double triad_bytes(std::uint64_t elements) {
  return 3.0 * sizeof(double) * static_cast<double>(elements);
}

ElementRange thread_range(std::uint64_t elements, int threads, int t) {
  const auto n = static_cast<std::uint64_t>(std::max(threads, 1));
  const auto i = static_cast<std::uint64_t>(t);
  const std::uint64_t base = elements / n, extra = elements % n;  // the first `extra` get one more
  const std::uint64_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

void triad(double* __restrict a, const double* __restrict b, const double* __restrict c,
           double scalar, ElementRange range) {
  for (std::uint64_t i = range.begin; i < range.end; ++i) a[i] = b[i] + scalar * c[i];
}

namespace {

// Uninitialised storage: each thread writes its own part first (first touch, above). On the OS's
// default pages, unlike the cases' operands: on huge pages the arrays cost far more set-up than
// they moved the roof (docs/measuring.md, "Roofs").
struct DoubleArray {
  explicit DoubleArray(std::uint64_t n) : data(new double[n]) {}
  std::unique_ptr<double[]> data;
};

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Why the arrays have the size they have, for the method text.
std::string array_size_reason(std::uint64_t asked_bytes, std::uint64_t llc_bytes) {
  if (asked_bytes > 0) return "as asked";
  if (llc_bytes == 0)
    return "last-level cache size unknown: the " + mib(max_bandwidth_array_bytes) + " cap";
  if (4 * llc_bytes > max_bandwidth_array_bytes)
    return "4x the " + mib(llc_bytes) + " last-level cache, capped at " +
           mib(max_bandwidth_array_bytes);
  return "4x the " + mib(llc_bytes) + " last-level cache";
}

}  // namespace

CpuBandwidth measure_cpu_bandwidth(const CpuBandwidthOptions& options) {
  CpuBandwidth result;
  result.threads = options.threads > 0 ? options.threads : platform::cpu_features().threads;
  result.threads = std::max(result.threads, 1);
  result.repetitions = std::max(options.repetitions, 1);
  const std::uint64_t llc = platform::last_level_cache_bytes();
  result.array_bytes = options.array_bytes > 0 ? options.array_bytes : bandwidth_array_bytes(llc);
  const std::uint64_t n = std::max<std::uint64_t>(result.array_bytes / sizeof(double), 1);
  DoubleArray a(n), b(n), c(n);
  const int threads = result.threads;
  const auto huge_bytes = bytes_put_on_huge_pages([&] {
    time_on_threads(threads, [&](int t) {
      const ElementRange r = thread_range(n, threads, t);
      std::fill(a.data.get() + r.begin, a.data.get() + r.end, 0.0);
      std::fill(b.data.get() + r.begin, b.data.get() + r.end, 1.0);
      std::fill(c.data.get() + r.begin, c.data.get() + r.end, 2.0);
    });
  });
  const auto pass = [&] {
    return time_on_threads(threads, [&](int t) {
      triad(a.data.get(), b.data.get(), c.data.get(), 3.0, thread_range(n, threads, t));
    });
  };
  pass();  // untimed: every page mapped and every core awake before the first timed pass
  std::vector<double> gbps;
  for (int r = 0; r < result.repetitions; ++r) gbps.push_back(triad_bytes(n) / pass() / 1e9);
  result.gbps = summarize(gbps).median_s;  // a median of rates: the field's unit is not seconds
  result.method = "STREAM triad a = b + s*c over 3 arrays of " + mib(result.array_bytes) + " (" +
                  array_size_reason(options.array_bytes, llc) + "), bytes = 3 x 8 x elements, " +
                  std::to_string(threads) + " threads, median of " +
                  std::to_string(result.repetitions) + " passes, pages " +
                  pages_note(3 * n * sizeof(double), huge_bytes);
  return result;
}

}  // namespace lb
