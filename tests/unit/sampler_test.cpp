#include "harness/measure/sampler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace lb {
namespace {

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

// A Sampler fed synthetic CPU readings: each sample's CPU time is either far more than its wall
// time (clean) or none with a switch (pre-empted), from a script.
struct ScriptedCpu {
  std::vector<bool> preempted_script;  // per sample; past its end, clean
  std::size_t reads = 0;
  PreemptionCheck::CpuReading now;
  PreemptionCheck::CpuReading read() {
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
  sampler.preemption.threads = 2;
  cpu.now.involuntary_switches = 0;
  sampler.preemption.usage = [&cpu] { return cpu.read(); };
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

TEST(Sampler, ARoundWhoseThreadsGotTooLittleOfTheirCoresIsContended) {
  // Test data: every sample's two threads get `share` of their cores, with no switch counted, so
  // no single sample looks pre-empted (1.9 or 1.0 x wall of CPU time, both over 0.9).
  for (const double share : {0.95, 0.5}) {
    Sampler sampler;
    sampler.rule.min_time_s = 0, sampler.rule.min_samples = 5, sampler.warmup_runs = 0;
    sampler.warmup_min_s = 0;
    sampler.preemption.threads = 2;
    PreemptionCheck::CpuReading now;
    now.involuntary_switches = 0;
    auto last = std::chrono::steady_clock::now();
    sampler.preemption.usage = [&] {
      const auto t = std::chrono::steady_clock::now();
      now.cpu_s += share * 2 * std::chrono::duration<double>(t - last).count();
      last = t;
      return now;
    };
    const auto st = sampler.measure([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return 1e-3;
    });
    SCOPED_TRACE(share);
    EXPECT_EQ(st.preempted_samples, 0);
    ASSERT_TRUE(st.cpu_share.has_value());
    EXPECT_NEAR(*st.cpu_share, share, 0.02);
    EXPECT_EQ(st.contended, share < contended_below_share);
  }
}

// The canary is read once before the warm-up and once just after them; either
// compute reading over canary_slow_above makes the round contended, the larger is recorded, and
// the memory unit's is recorded without being judged.
TEST(Sampler, ARoundTheCanaryReadSlowAroundIsContended) {
  const std::vector<std::tuple<double, double, bool>> cases = {
      {1.0, 1.1, false}, {1.0, 2.0, true}, {1.9, 1.0, true}, {1.45, 1.45, false}};
  for (const auto& [before, after, contended] : cases) {
    Sampler sampler;
    sampler.rule.min_time_s = 0, sampler.rule.min_samples = 5, sampler.warmup_runs = 2;
    sampler.warmup_min_s = 0;
    std::vector<std::string> order;
    int readings = 0;
    sampler.machine_slowdown = [&, before = before, after = after] {
      order.push_back("canary");
      return readings++ == 0 ? CanarySlowdown{before, 5.0} : CanarySlowdown{after, 1.0};
    };
    const auto st = sampler.measure([&] {
      order.push_back("sample");
      return 1.0;
    });
    EXPECT_EQ(readings, 2);
    EXPECT_DOUBLE_EQ(st.canary_slowdown, std::max(before, after));
    EXPECT_DOUBLE_EQ(st.canary_memory_slowdown, 5.0);
    EXPECT_EQ(st.contended, contended) << before << " " << after;
    // canary, warm-up (2), 5 samples, canary
    const std::vector<std::string> expected = {"canary", "sample", "sample", "sample", "sample",
                                               "sample", "sample", "sample", "canary"};
    EXPECT_EQ(order, expected);
  }
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
