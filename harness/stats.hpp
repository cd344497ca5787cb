#pragma once
// Sample statistics and the stopping rule. Pure logic, unit-tested.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
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
  // The median CPU time of a kept sample (all threads; 0 when not read). CPU points only (see
  // Sampler::usage): samples judged pre-empted (each re-taken while the bound allows), the CPU
  // share the timed samples got (CPU time / (wall x threads), all samples taken), and whether
  // the point could not be measured clean (`contended`). Empty/0/false for GPU points.
  std::int64_t preempted_samples = 0;
  std::optional<double> cpu_share;
  double cpu_median_s = 0;
  bool contended = false;
  // --discard-throttled (Sampler::discard_throttled): throttled samples re-taken, and whether
  // the point kept throttled ones because the bound ran out.
  std::int64_t throttled_retakes = 0;
  bool throttled = false;
  // Interleaved rounds (harness/measure/rounds.hpp): each counted round's median in round
  // order, which of them the sample figures but the median are (the one nearest the median of
  // the rounds' medians), and the spread between them, a second noise figure.
  // Empty in files from before rounds.
  std::vector<double> round_medians_s;
  std::vector<bool> round_contended;
  std::size_t best_round = 0;
  double round_spread = 0;
  // The counted rounds still disagree widely (rounds.hpp, judge_rounds), and the figure's
  // relative uncertainty: the larger of `noise` and `round_spread`.
  bool unstable = false;
  double uncertainty = 0;
};

// One timed sample as the CPU saw it: its wall time, the CPU time all of the process's threads
// got during it, the compute threads, and involuntary context switches (-1: not counted).
struct CpuSample {
  double wall_s = 0, cpu_s = 0;
  int threads = 1;
  long long involuntary_switches = -1;
  double run_queue_wait_s = -1;  // the threads' time runnable but without a core; -1: unknown
};

// A timed call as Sampler::checked_run saw it.
struct CheckedRun {
  double seconds = 0;  // what the call returned: its own timing
  double wall_s = 0, cpu_s = 0;
  bool preempted = false;
};

// Did a compute thread lose its core during the sample? See the threshold's reasoning in
// stats.cpp. Pure; unit-tested on synthetic samples.
bool preempted(const CpuSample& s);
// Below 0.9 x wall of CPU time, or 0.9 of wall x threads with an involuntary switch, a sample
// counts as pre-empted (stats.cpp says why).
inline constexpr double preempted_below_share = 0.9;

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

  // The pre-emption check, for points whose compute threads are ours (CPU points): `usage`
  // reads the process's CPU time and involuntary switches (platform::process_cpu_usage), read
  // before and after each timed sample. A pre-empted sample is re-taken while the pre-empted
  // ones number at most max(min_samples, clean ones) and the time cap allows; past that the
  // point is contended and its samples are kept as they come. With `threads` 0 (GPU points,
  // timed by device events) the CPU time is only recorded (cpu_median_s), never judged.
  struct CpuReading {
    double cpu_s = 0;
    long long involuntary_switches = -1;
    double run_queue_wait_s = -1;
  };
  std::function<CpuReading()> usage;
  int threads = 1;

  // One call of `sample` with the pre-emption check around it (when `usage` is set): the time it
  // returned, the wall and CPU time it took, and whether a compute thread lost its core.
  CheckedRun checked_run(const std::function<double()>& sample) const;

  // --discard-throttled: a sample `hooks.throttled` says a power or thermal cap slowed is
  // re-taken, within the same bound as a pre-empted one; past it the samples are kept and the
  // point is flagged `throttled`.
  bool discard_throttled = false;
  // --profile: exactly this many samples after the warm-up, the stopping rule set aside
  // (stopped_by "fixed_runs"), so that a profiler's capture of every point lines up; 0: off.
  int fixed_runs = 0;
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

// True when the rule is satisfied by these samples after `elapsed_s` of wall time.
// Sets `why` to the reason ("noise", "time_cap", "max_samples").
bool should_stop(const StoppingRule& rule, const std::vector<double>& samples_s, double elapsed_s,
                 std::string& why);

}  // namespace lb
