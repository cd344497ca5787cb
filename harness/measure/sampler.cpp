#include "harness/measure/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace lb {

bool Sampler::done(const std::vector<double>& samples_s, double elapsed_s, std::string& why) const {
  if (fixed_runs <= 0) return should_stop(rule, samples_s, elapsed_s, why);
  why = "fixed_runs";
  return samples_s.size() >= static_cast<std::size_t>(fixed_runs);
}

SampleStats Sampler::measure(const std::function<double()>& sample, const Hooks& hooks) const {
  using clock = std::chrono::steady_clock;
  const auto seconds_since = [](clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  // The canary before the warm-up: its memory unit evicts caches, which the warm-up then refills
  // as a warm-cache point expects.
  const CanarySlowdown canary_before = machine_slowdown ? machine_slowdown() : CanarySlowdown{};
  // Warm-up: first launches pay for lazy initialisation, page faults and clock ramp-up.
  const auto warm_start = clock::now();
  for (int i = 0; i < warmup_runs || seconds_since(warm_start) < warmup_min_s; ++i) {
    sample();
    if (seconds_since(warm_start) > rule.max_time_s) break;
  }
  std::vector<double> samples, cpu_times;
  if (hooks.begin_samples) hooks.begin_samples();
  std::int64_t preempted_samples = 0, throttled_retakes = 0;
  bool contended = false, throttled = false;
  double cpu_total = 0, wall_total = 0;
  std::string why;
  const auto start = clock::now();
  do {
    const CheckedRun run = preemption.run(sample);
    cpu_total += run.cpu_s;
    wall_total += run.wall_s;
    if (run.preempted) {
      ++preempted_samples;
      const auto bound = std::max<std::int64_t>(rule.min_samples, samples.size());
      // Re-take it, within the bound and the time cap; past either, keep it: this point cannot
      // be measured clean here.
      if (preempted_samples <= bound && seconds_since(start) < rule.max_time_s) continue;
      contended = true;
    }
    if (discard_throttled && hooks.throttled && hooks.throttled()) {
      const auto bound = std::max<std::int64_t>(rule.min_samples, samples.size());
      if (throttled_retakes < bound && seconds_since(start) < rule.max_time_s) {
        ++throttled_retakes;
        continue;
      }
      throttled = true;
    }
    samples.push_back(run.seconds);
    cpu_times.push_back(run.cpu_s);
  } while (samples.empty() || !done(samples, seconds_since(start), why));
  if (hooks.end_samples) hooks.end_samples();
  SampleStats st = summarize(samples);
  if (machine_slowdown) {
    const CanarySlowdown canary_after = machine_slowdown();
    st.canary_slowdown = std::max(canary_before.compute, canary_after.compute);
    st.canary_memory_slowdown = std::max(canary_before.memory, canary_after.memory);
  }
  st.stopped_by = why;
  st.throttled_retakes = throttled_retakes;
  st.throttled = throttled;
  if (preemption.usage) st.cpu_median_s = median(cpu_times);
  if (preemption.usage && preemption.threads > 0) {
    st.preempted_samples = preempted_samples;
    st.cpu_share = wall_total > 0 ? cpu_total / (wall_total * preemption.threads) : 0;
    st.contended = contended || *st.cpu_share < contended_below_share;
  }
  if (st.canary_slowdown > canary_slow_above) st.contended = true;
  return st;
}

}  // namespace lb
