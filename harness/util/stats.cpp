#include "harness/util/stats.hpp"

#include <algorithm>
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

double relative_noise(const std::vector<double>& v, double middle) {
  std::vector<double> dev(v.size());
  std::transform(v.begin(), v.end(), dev.begin(), [&](double x) { return std::abs(x - middle); });
  return middle > 0 ? 1.4826 * median(dev) / middle : 0;
}

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

}  // namespace lb
