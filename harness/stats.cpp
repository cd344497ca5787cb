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

// Three ways a compute thread is seen off its core, each with the threshold 0.9:
// - Its threads waited on a run queue, runnable without a core, for over a tenth of the sample
//   (schedstat's run delay, where the OS tells). This is the direct reading, and the one that
//   catches a worker woken into a core another program holds while the caller spins on the
//   other core: the CPU time then has no hole and no switch is counted, yet the sample lasts
//   until the scheduler's tick (4 ms) hands the core back; a quick run beside one busy loop
//   showed batch norm at 7.9 ms against 0.012 ms quiet, judged clean by the two signals below.
// - No thread of ours ran for over a tenth of the sample (CPU time < 0.9 x wall). A CPU sample
//   always has a thread working or spinning on its core (the caller computes, or waits while the
//   workers compute), so a hole means the threads that had work were waiting for a core. This
//   catches a woken worker left in the run queue behind another program: it counts no
//   involuntary switch (it went to sleep by itself), and the loaded runs this was made for show
//   exactly that: medians on multiples of the 4 ms scheduler tick, with CPU time far below wall.
// - An involuntary switch and under 0.9 of wall x threads: a thread taken off its core while
//   the others spin waiting for it (OpenMP and OpenBLAS workers spin before they sleep, so a
//   clean multi-threaded sample keeps its share near 1). The switch is required here because a
//   share below 1 alone has harmless causes (a worker asleep during a one-thread step), and the
//   share because a kernel thread's brief switch that cost under a tenth is no reason to re-take.
// 0.9 leaves room for the clock: the process CPU clock reads the calling thread's time exactly
// but the other threads' as of their last scheduler tick. Where switches are not counted
// (Windows), the share alone decides the second case.
bool preempted(const CpuSample& s) {
  if (s.wall_s <= 0 || s.threads < 1) return false;
  const bool no_thread_ran = s.cpu_s < preempted_below_share * s.wall_s;
  const double share = s.cpu_s / (s.wall_s * s.threads);
  const bool waited_for_a_core = s.run_queue_wait_s > (1 - preempted_below_share) * s.wall_s;
  return waited_for_a_core || no_thread_ran ||
         (s.involuntary_switches != 0 && share < preempted_below_share);
}

CheckedRun Sampler::checked_run(const std::function<double()>& sample) const {
  if (!usage) return {sample(), 0, 0, false};
  const CpuReading before = usage();
  const auto t0 = std::chrono::steady_clock::now();
  const double timed = sample();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const CpuReading after = usage();
  const long long switches = before.involuntary_switches < 0 || after.involuntary_switches < 0
                                 ? -1
                                 : after.involuntary_switches - before.involuntary_switches;
  const double cpu = after.cpu_s - before.cpu_s;
  const double waited = before.run_queue_wait_s < 0 || after.run_queue_wait_s < 0
                            ? -1
                            : after.run_queue_wait_s - before.run_queue_wait_s;
  return {timed, wall, cpu, preempted({wall, cpu, threads, switches, waited})};
}

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
    const CheckedRun run = checked_run(sample);
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
  st.stopped_by = why;
  st.throttled_retakes = throttled_retakes;
  st.throttled = throttled;
  if (usage) st.cpu_median_s = median(cpu_times);
  if (usage && threads > 0) {
    st.preempted_samples = preempted_samples;
    st.contended = contended;
    st.cpu_share = wall_total > 0 ? cpu_total / (wall_total * threads) : 0;
  }
  return st;
}

}  // namespace lb
