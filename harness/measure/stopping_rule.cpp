#include "harness/measure/stopping_rule.hpp"

#include "harness/util/stats.hpp"

namespace lb {

bool should_stop(const StoppingRule& rule, const std::vector<double>& s, double elapsed_s,
                 std::string& why) {
  const auto n = static_cast<int>(s.size());
  if (n >= rule.max_samples) {
    why = "max_samples";
    return true;
  }
  // The noise check costs O(n); past 64 samples it runs every 32nd sample only.
  if (n >= rule.min_samples && elapsed_s >= rule.min_time_s && (n < 64 || n % 32 == 0)) {
    if (relative_noise(s, median(s)) <= rule.noise_target) {
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

}  // namespace lb
