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

}  // namespace
}  // namespace lb
