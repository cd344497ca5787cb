#pragma once
// Sample statistics and the stopping rule. Pure logic, unit-tested.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lb {

struct SampleStats {
  std::int64_t samples = 0;
  double median_s = 0, min_s = 0, max_s = 0, mean_s = 0, stddev_s = 0;
  // Relative noise: the median absolute deviation scaled to a standard deviation
  // (1.4826 x MAD, exact for normal data) divided by the median. Robust to the odd
  // preempted sample, which a plain stddev/mean is not.
  double noise = 0;
  std::string stopped_by;  // "noise" (target met), "time_cap" or "max_samples"
};

// The middle value; the mean of the two middle values for an even count. Throws
// std::invalid_argument for no values.
double median(std::vector<double> values);

SampleStats summarize(const std::vector<double>& samples_s);

// The defaults are `layerbench run`'s (--noise-target, --max-time-per-point).
struct StoppingRule {
  double noise_target = 0.01;  // relative noise to reach
  double min_time_s = 0.1;     // measure at least this long ...
  int min_samples = 5;         // ... and at least this many samples
  double max_time_s = 1.0;     // then give up on the noise target (recorded as is)
  int max_samples = 10000;
};

// Run `sample` (one timed launch, returns seconds) after `warmup` untimed-by-us calls until
// the rule says stop. `elapsed` is wall time spent so far, including set-up between samples.
struct Sampler {
  StoppingRule rule;
  int warmup_runs = 3;
  double warmup_min_s = 0.05;

  SampleStats measure(const std::function<double()>& sample) const;
};

// True when the rule is satisfied by these samples after `elapsed_s` of wall time.
// Sets `why` to the reason ("noise", "time_cap", "max_samples").
bool should_stop(const StoppingRule& rule, const std::vector<double>& samples_s, double elapsed_s,
                 std::string& why);

}  // namespace lb
