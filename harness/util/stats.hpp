#pragma once
// Sample statistics: a point's timing summary as the results file records it, the median and
// the MAD-based relative noise. Pure logic, unit-tested.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lb {

struct SampleStats {
  std::int64_t samples = 0;
  double median_s = 0, min_s = 0, max_s = 0, mean_s = 0, stddev_s = 0;
  // Relative noise (relative_noise): robust to the odd preempted sample, which a plain
  // stddev/mean is not.
  double noise = 0;
  std::string stopped_by;  // "noise" (target met), "time_cap", "max_samples" or "fixed_runs"
  // The median CPU time of a kept sample (all threads; 0 when not read). CPU points only
  // (harness/measure/preemption.hpp): samples judged pre-empted, the timed samples' CPU share
  // (CPU time / (wall x threads)), and whether the point could not be measured clean.
  std::int64_t preempted_samples = 0;
  std::optional<double> cpu_share;
  double cpu_median_s = 0;
  bool contended = false;
  // The machine's canary around the timed samples (harness/measure/canary.hpp): the larger of
  // its compute unit's slowdowns just before and just after them (judged), and of its memory
  // unit's (recorded); 0 when not read (GPU points, older files).
  double canary_slowdown = 0, canary_memory_slowdown = 0;
  // --discard-throttled (Sampler::discard_throttled): throttled samples re-taken, and whether
  // the point kept throttled ones because the bound ran out.
  std::int64_t throttled_retakes = 0;
  bool throttled = false;
  // Interleaved rounds (harness/measure/rounds.hpp): each counted round's median in order, the
  // round whose sample figures these are (nearest the median of the medians), and the spread
  // between them, a second noise figure. Empty in files from before rounds.
  std::vector<double> round_medians_s;
  std::vector<bool> round_contended;
  // Each round's canary_slowdown and canary_memory_slowdown, when read.
  std::vector<double> round_canary_slowdowns, round_canary_memory_slowdowns;
  std::size_t best_round = 0;
  double round_spread = 0;
  // The counted rounds still disagree widely (rounds.hpp, judge_rounds), and the figure's
  // relative uncertainty: the larger of `noise` and `round_spread`.
  bool unstable = false;
  double uncertainty = 0;
};

// The middle value; the mean of the two middle values for an even count. Throws
// std::invalid_argument for no values.
double median(std::vector<double> values);

// The median absolute deviation about `middle`, scaled to a standard deviation (1.4826 x MAD,
// exact for normal data), divided by `middle`; 0 when `middle` is not positive.
double relative_noise(const std::vector<double>& values, double middle);

SampleStats summarize(const std::vector<double>& samples_s);

}  // namespace lb
