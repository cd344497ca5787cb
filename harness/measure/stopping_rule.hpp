#pragma once
// When a point's sampling stops: once its relative noise meets the target after a least time and
// sample count, else at the time cap or the sample cap. Pure logic, unit-tested.
#include <string>
#include <vector>

namespace lb {

// The defaults are `layerbench run`'s (--noise-target, --max-time-per-point).
struct StoppingRule {
  double noise_target = 0.01;  // relative noise to reach
  double min_time_s = 0.1;     // measure at least this long ...
  int min_samples = 5;         // ... and at least this many samples
  double max_time_s = 1.0;     // then give up on the noise target (recorded as is)
  int max_samples = 10000;
};

// True when the rule is satisfied by these samples after `elapsed_s` of wall time.
// Sets `why` to the reason ("noise", "time_cap", "max_samples").
bool should_stop(const StoppingRule& rule, const std::vector<double>& samples_s, double elapsed_s,
                 std::string& why);

}  // namespace lb
