#include "harness/stats.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

TEST(Stats, SummarizeOddAndEven) {
  auto s = summarize({3, 1, 2});
  EXPECT_DOUBLE_EQ(s.median_s, 2);
  EXPECT_DOUBLE_EQ(s.min_s, 1);
  EXPECT_DOUBLE_EQ(s.max_s, 3);
  EXPECT_DOUBLE_EQ(s.mean_s, 2);
  EXPECT_DOUBLE_EQ(s.stddev_s, 1);
  EXPECT_EQ(s.samples, 3);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median_s, 2.5);
}

TEST(Stats, NoiseIsRobustToOneOutlier) {
  // MAD of {10,10,10,10,1000} about the median 10 is 0: one preempted sample is not noise.
  auto s = summarize({10, 10, 10, 10, 1000});
  EXPECT_DOUBLE_EQ(s.noise, 0);
  EXPECT_GT(s.stddev_s, 100);
  // {9, 10, 11}: MAD = 1, noise = 1.4826 * 1 / 10.
  EXPECT_NEAR(summarize({9, 10, 11}).noise, 0.14826, 1e-12);
}

TEST(Stats, EmptyThrows) { EXPECT_THROW(summarize({}), std::invalid_argument); }

// The one median (cuda::logic::median delegates to it): middle value, mean of the middle two.
TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(StoppingRule, StopsOnNoiseOnlyAfterMinimumTimeAndSamples) {
  StoppingRule rule;
  rule.noise_target = 0.01, rule.min_time_s = 0.2, rule.min_samples = 5, rule.max_time_s = 2;
  std::string why;
  std::vector<double> quiet(5, 1.0);
  EXPECT_FALSE(should_stop(rule, quiet, 0.1, why));         // quiet but too early
  EXPECT_FALSE(should_stop(rule, {1, 1, 1, 1}, 0.5, why));  // too few samples
  EXPECT_TRUE(should_stop(rule, quiet, 0.3, why));
  EXPECT_EQ(why, "noise");
}

TEST(StoppingRule, NoisySamplesRunUntilTheCap) {
  StoppingRule rule;
  std::vector<double> noisy{1, 1.5, 2, 1.2, 1.8, 1.1, 1.9};  // noise 1.4826*0.4/1.5
  std::string why;
  EXPECT_FALSE(should_stop(rule, noisy, rule.max_time_s / 2, why));
  EXPECT_TRUE(should_stop(rule, noisy, rule.max_time_s, why));
  EXPECT_EQ(why, "time_cap");
}

TEST(Sampler, WarmsUpThenMeasures) {
  Sampler sampler;
  sampler.rule.min_time_s = 0, sampler.rule.min_samples = 5, sampler.warmup_runs = 3;
  sampler.warmup_min_s = 0;
  int calls = 0;
  // The first three calls are slow (cold); the measured ones must not see them.
  auto st = sampler.measure([&] { return ++calls <= 3 ? 100.0 : 1.0; });
  EXPECT_DOUBLE_EQ(st.max_s, 1.0);
  EXPECT_EQ(st.samples, 5);
  EXPECT_EQ(st.stopped_by, "noise");
}

// Synthetic samples (test data): 2 compute threads over 1 ms of wall time.
TEST(Preemption, FullShareIsCleanEvenWithASwitch) {
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0}));
  EXPECT_FALSE(preempted({1e-3, 1.95e-3, 2, 1}));  // a kernel thread's blip: 2.5% lost
}

TEST(Preemption, AThreadOffItsCoreWithASwitchIsPreempted) {
  // One of two threads gone for 3 of the 4 ms: share 5/8.
  EXPECT_TRUE(preempted({4e-3, 5e-3, 2, 1}));
  EXPECT_TRUE(preempted({4e-3, 0, 1, 3}));
}

TEST(Preemption, OneThreadsWorthWithoutASwitchIsAWaitNotAPreemption) {
  // A worker asleep by its own choice (voluntary) while the caller works: share 1/2, no switch.
  EXPECT_FALSE(preempted({1e-3, 1e-3, 2, 0}));
}

TEST(Preemption, NoThreadRunningIsPreemptedWithoutAnySwitch) {
  // A woken worker waiting in the run queue: 31 ms of wall, 7.5 ms of CPU over 2 threads (the
  // shape of the loaded runs), no involuntary switch counted.
  EXPECT_TRUE(preempted({31e-3, 7.5e-3, 2, 0}));
  EXPECT_TRUE(preempted({1e-3, 0.5e-3, 1, 0}));
  EXPECT_FALSE(preempted({1e-3, 0.95e-3, 1, 0}));
}

TEST(Preemption, WithoutSwitchCountsTheShareDecides) {
  EXPECT_TRUE(preempted({1e-3, 1e-3, 2, -1}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, -1}));
}

// The loaded quick run's batch norm (test data shaped on it): the caller spun on its core for
// the whole 7.9 ms (CPU time = wall, no hole) and no switch was counted, while the woken worker
// waited 7.8 ms for the core a busy loop held. Only the run-queue wait tells.
TEST(Preemption, AThreadWaitingForACoreIsPreemptedWithoutSwitchOrHole) {
  EXPECT_FALSE(preempted({7.9e-3, 7.9e-3, 2, 0}));  // the two other signals see nothing
  EXPECT_TRUE(preempted({7.9e-3, 7.9e-3, 2, 0, 7.8e-3}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, 0}));        // quiet: no wait
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, 0.09e-3}));  // under a tenth: kept
  EXPECT_TRUE(preempted({1e-3, 2e-3, 2, 0, 0.11e-3}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, -1}));  // not known: the other signals decide
}

TEST(Preemption, ThresholdEdgesAndDegenerateInput) {
  const double wall = 1e-3, threads = 2;
  EXPECT_FALSE(preempted({wall, preempted_below_share * wall * threads, 2, 1}));
  EXPECT_TRUE(preempted({wall, 0.99 * preempted_below_share * wall * threads, 2, 1}));
  EXPECT_FALSE(preempted({wall, preempted_below_share * wall, 2, 0}));
  EXPECT_TRUE(preempted({wall, 0.99 * preempted_below_share * wall, 2, 0}));
  EXPECT_FALSE(preempted({0, 0, 2, 5}));     // no wall time: nothing to judge
  EXPECT_FALSE(preempted({1e-3, 0, 0, 5}));  // no threads: nothing to judge
}

// A Sampler fed synthetic CPU readings: each sample's CPU time is either far more than its wall
// time (clean) or none with a switch (pre-empted), from a script.
struct ScriptedCpu {
  std::vector<bool> preempted_script;  // per sample; past its end, clean
  std::size_t reads = 0;
  Sampler::CpuReading now;
  Sampler::CpuReading read() {
    if (reads++ % 2 == 1) {  // the reading after a sample
      const std::size_t sample = reads / 2 - 1;
      const bool lost = sample < preempted_script.size() && preempted_script[sample];
      now.cpu_s += lost ? 0 : 1e3;
      now.involuntary_switches += lost ? 1 : 0;
    }
    return now;
  }
};

Sampler scripted_sampler(ScriptedCpu& cpu) {
  Sampler sampler;
  sampler.rule.min_time_s = 0, sampler.rule.min_samples = 5, sampler.warmup_runs = 0;
  sampler.warmup_min_s = 0;
  sampler.threads = 2;
  cpu.now.involuntary_switches = 0;
  sampler.usage = [&cpu] { return cpu.read(); };
  return sampler;
}

TEST(Sampler, RetakesPreemptedSamplesAndCountsThem) {
  ScriptedCpu cpu{{false, true, false, true}};
  int calls = 0;
  // Pre-empted samples take 50x as long; none may reach the statistics.
  const auto st =
      scripted_sampler(cpu).measure([&] { return ++calls == 2 || calls == 4 ? 50 : 1; });
  EXPECT_EQ(st.preempted_samples, 2);
  EXPECT_EQ(st.samples, 5);
  EXPECT_DOUBLE_EQ(st.max_s, 1.0);
  EXPECT_FALSE(st.contended);
  ASSERT_TRUE(st.cpu_share.has_value());
  EXPECT_GT(*st.cpu_share, 1.0);  // the script's clean samples get far more CPU than wall
}

TEST(Sampler, APointThatCannotBeTakenCleanIsContended) {
  ScriptedCpu cpu{std::vector<bool>(100, true)};
  const auto st = scripted_sampler(cpu).measure([] { return 1.0; });
  EXPECT_TRUE(st.contended);
  EXPECT_GE(st.samples, 5);
  // Re-takes stop at the bound: min_samples (5) re-taken, then every one kept.
  EXPECT_EQ(st.preempted_samples, 5 + st.samples);
  EXPECT_DOUBLE_EQ(*st.cpu_share, 0.0);
}

TEST(Sampler, WithoutTheCheckNothingIsJudged) {
  Sampler sampler;
  sampler.rule.min_time_s = 0, sampler.warmup_runs = 0, sampler.warmup_min_s = 0;
  const auto st = sampler.measure([] { return 1.0; });
  EXPECT_EQ(st.preempted_samples, 0);
  EXPECT_FALSE(st.cpu_share.has_value());
  EXPECT_FALSE(st.contended);
}

// Synthetic device samples (test data): a throttled sample takes 2x as long.
Sampler throttle_sampler() {
  Sampler sampler;
  sampler.rule.min_time_s = 0, sampler.rule.min_samples = 5, sampler.warmup_runs = 2;
  sampler.warmup_min_s = 0;
  sampler.discard_throttled = true;
  return sampler;
}

TEST(Sampler, DiscardThrottledRetakesThemAfterTheWarmUp) {
  int calls = 0, began_at = -1;
  Sampler::Hooks hooks;
  hooks.begin_samples = [&] { began_at = calls; };
  hooks.throttled = [&] { return calls == 4 || calls == 6; };
  const auto st =
      throttle_sampler().measure([&] { return ++calls == 4 || calls == 6 ? 2.0 : 1.0; }, hooks);
  EXPECT_EQ(began_at, 2);  // after the two warm-up runs
  EXPECT_EQ(st.throttled_retakes, 2);
  EXPECT_FALSE(st.throttled);
  EXPECT_EQ(st.samples, 5);
  EXPECT_DOUBLE_EQ(st.max_s, 1.0);
}

TEST(Sampler, AlwaysThrottledIsKeptAndFlagged) {
  Sampler::Hooks hooks;
  hooks.throttled = [] { return true; };
  const auto st = throttle_sampler().measure([] { return 1.0; }, hooks);
  EXPECT_TRUE(st.throttled);
  EXPECT_EQ(st.throttled_retakes, 5);  // the bound: min_samples re-taken, then kept
  Sampler keep = throttle_sampler();
  keep.discard_throttled = false;
  const auto kept = keep.measure([] { return 1.0; }, hooks);
  EXPECT_EQ(kept.throttled_retakes, 0);
  EXPECT_FALSE(kept.throttled);
}

TEST(Sampler, FixedRunsSetTheStoppingRuleAside) {
  Sampler sampler = throttle_sampler();
  sampler.discard_throttled = false;
  sampler.fixed_runs = 12;
  int calls = 0, ended_at = -1;
  Sampler::Hooks hooks;
  hooks.end_samples = [&] { ended_at = calls; };
  const auto st = sampler.measure([&] { return ++calls % 2 ? 1.0 : 3.0; }, hooks);
  EXPECT_EQ(st.samples, 12);  // the noise target alone would have gone on
  EXPECT_EQ(st.stopped_by, "fixed_runs");
  EXPECT_EQ(ended_at, 2 + 12);  // after the warm-up and every sample
}

}  // namespace
}  // namespace lb
