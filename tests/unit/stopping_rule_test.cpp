#include "harness/measure/stopping_rule.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

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

TEST(StoppingRule, TheSampleCapStopsBeforeTheTimeCap) {
  StoppingRule rule;
  rule.max_samples = 7;
  const std::vector<double> noisy{1, 1.5, 2, 1.2, 1.8, 1.1, 1.9};
  std::string why;
  EXPECT_TRUE(should_stop(rule, noisy, 0, why));
  EXPECT_EQ(why, "max_samples");
  EXPECT_FALSE(should_stop(rule, {1, 1.5, 2, 1.2, 1.8, 1.1}, 0, why));
}

}  // namespace
}  // namespace lb
