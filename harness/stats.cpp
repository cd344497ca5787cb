#include "harness/stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace lb {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  const auto mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + mid)) / 2;
  return m;
}

namespace {

double relative_noise(const std::vector<double>& v, double middle) {
  std::vector<double> dev(v.size());
  std::transform(v.begin(), v.end(), dev.begin(), [&](double x) { return std::abs(x - middle); });
  return middle > 0 ? 1.4826 * median(dev) / middle : 0;
}
}  // namespace

SampleStats summarize(const std::vector<double>& s) {
  if (s.empty()) throw std::invalid_argument("summarize: no samples");
  SampleStats st;
  st.samples = static_cast<std::int64_t>(s.size());
  st.median_s = median(s);
  auto [lo, hi] = std::minmax_element(s.begin(), s.end());
  st.min_s = *lo;
  st.max_s = *hi;
  st.mean_s = std::accumulate(s.begin(), s.end(), 0.0) / s.size();
  double sq = 0;
  for (double x : s) sq += (x - st.mean_s) * (x - st.mean_s);
  st.stddev_s = s.size() > 1 ? std::sqrt(sq / (s.size() - 1)) : 0;
  st.noise = relative_noise(s, st.median_s);
  return st;
}

bool should_stop(const StoppingRule& rule, const std::vector<double>& s, double elapsed_s,
                 std::string& why) {
  const auto n = static_cast<int>(s.size());
  if (n >= rule.max_samples) {
    why = "max_samples";
    return true;
  }
  // The noise check costs O(n); past 64 samples it runs every 32nd sample only.
  if (n >= rule.min_samples && elapsed_s >= rule.min_time_s && (n < 64 || n % 32 == 0)) {
    const double med = median(s);
    if (relative_noise(s, med) <= rule.noise_target) {
      why = "noise";
      return true;
    }
  }
  if (elapsed_s >= rule.max_time_s && n >= 1) {
    why = "time_cap";
    return true;
  }
  return false;
}

SampleStats Sampler::measure(const std::function<double()>& sample) const {
  using clock = std::chrono::steady_clock;
  const auto seconds_since = [](clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  // Warm-up: first launches pay for lazy initialisation, page faults and clock ramp-up.
  const auto warm_start = clock::now();
  for (int i = 0; i < warmup_runs || seconds_since(warm_start) < warmup_min_s; ++i) {
    sample();
    if (seconds_since(warm_start) > rule.max_time_s) break;
  }
  std::vector<double> samples;
  std::string why;
  const auto start = clock::now();
  do {
    samples.push_back(sample());
  } while (!should_stop(rule, samples, seconds_since(start), why));
  SampleStats st = summarize(samples);
  st.stopped_by = why;
  return st;
}

}  // namespace lb
