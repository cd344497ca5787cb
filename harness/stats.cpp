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

// Why 0.9 with at least one involuntary switch: a compute thread that lost its core to another
// runnable task is gone for the scheduler's slice (milliseconds: the loaded runs this was made
// for sit on multiples of the 4 ms tick), so its sample's CPU time falls well short of wall x
// threads. Library worker threads that wait spin on their core (OpenMP, OpenBLAS), so a clean
// multi-threaded sample keeps its share near 1. The switch count keeps a sample whose share is
// low for a harmless reason (a worker asleep, one-thread set-up) from being judged alone, and
// the share keeps a brief kernel-thread switch that cost under a tenth of the sample's thread
// time from forcing a re-take. The process CPU clock reads the other threads' time as of their
// last scheduler tick, so for a sample shorter than a tick the share is approximate in both
// directions; the switch count is exact. Where switches are not counted (Windows), the share
// alone decides.
bool preempted(const CpuSample& s) {
  if (s.wall_s <= 0 || s.threads < 1) return false;
  const double share = s.cpu_s / (s.wall_s * s.threads);
  return s.involuntary_switches != 0 && share < preempted_below_share;
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
  std::vector<double> samples, cpu_times;
  std::int64_t preempted_samples = 0;
  bool contended = false;
  double cpu_total = 0, wall_total = 0;
  std::string why;
  const auto start = clock::now();
  do {
    if (!usage) {
      samples.push_back(sample());
      continue;
    }
    const CpuReading before = usage();
    const auto t0 = clock::now();
    const double timed = sample();
    const double wall = seconds_since(t0);
    const CpuReading after = usage();
    const long long switches = before.involuntary_switches < 0 || after.involuntary_switches < 0
                                   ? -1
                                   : after.involuntary_switches - before.involuntary_switches;
    const double cpu = after.cpu_s - before.cpu_s;
    cpu_total += cpu;
    wall_total += wall;
    if (preempted({wall, cpu, threads, switches})) {
      ++preempted_samples;
      const auto bound = std::max<std::int64_t>(rule.min_samples, samples.size());
      // Re-take it, within the bound and the time cap; past either, keep it: this point cannot
      // be measured clean here.
      if (preempted_samples <= bound && seconds_since(start) < rule.max_time_s) continue;
      contended = true;
    }
    samples.push_back(timed);
    cpu_times.push_back(cpu);
  } while (samples.empty() || !should_stop(rule, samples, seconds_since(start), why));
  SampleStats st = summarize(samples);
  st.stopped_by = why;
  if (usage) st.cpu_median_s = median(cpu_times);
  if (usage && threads > 0) {
    st.preempted_samples = preempted_samples;
    st.contended = contended;
    st.cpu_share = wall_total > 0 ? cpu_total / (wall_total * threads) : 0;
  }
  return st;
}

}  // namespace lb
