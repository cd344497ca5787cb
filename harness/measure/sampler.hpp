#pragma once
// The sampler: a point's warm-up, then timed samples until the stopping rule says stop, with
// pre-empted (and, when asked, throttled) samples re-taken within a bound. Pure logic, unit-tested
// on synthetic samples.
#include <functional>
#include <string>
#include <vector>

#include "harness/measure/canary.hpp"
#include "harness/measure/preemption.hpp"
#include "harness/measure/stopping_rule.hpp"
#include "harness/util/stats.hpp"

namespace lb {

// Runs `sample` (one timed launch, returns seconds) after the warm-up until the rule says stop.
struct Sampler {
  StoppingRule rule;
  int warmup_runs = 3;
  double warmup_min_s = 0.05;

  // A pre-empted sample is re-taken while the pre-empted ones number at most max(min_samples,
  // clean ones) and the time cap allows; past that the point is contended and its samples are
  // kept as they come.
  PreemptionCheck preemption;
  // --discard-throttled: a sample `hooks.throttled` says a power or thermal cap slowed is
  // re-taken, within the same bound as a pre-empted one; past it the samples are kept and the
  // point is flagged `throttled`.
  bool discard_throttled = false;
  // --profile: exactly this many samples after the warm-up, the stopping rule set aside
  // (stopped_by "fixed_runs"), so that a profiler's capture of every point lines up; 0: off.
  int fixed_runs = 0;
  // The machine's speed at the moment: the canary's slowdowns (canary.hpp), read before the warm-up
  // and just after the timed samples; null: not read. A round either reading's compute unit
  // puts over canary_slow_above is contended: the machine, not this process, was slow then.
  std::function<CanarySlowdown()> machine_slowdown;
  struct Hooks {
    std::function<void()> begin_samples;  // called once, after the warm-up
    std::function<void()> end_samples;    // called once, after the last sample
    std::function<bool()> throttled;      // whether the last sample was throttled
  };

  SampleStats measure(const std::function<double()>& sample, const Hooks& hooks = {}) const;

 private:
  // Whether sampling stops: after fixed_runs samples when set, else by the stopping rule.
  bool done(const std::vector<double>& samples_s, double elapsed_s, std::string& why) const;
};

}  // namespace lb
