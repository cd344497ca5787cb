#include "harness/util/stats.hpp"

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

TEST(Stats, RelativeNoiseIsTheScaledMadOverTheMiddle) {
  EXPECT_NEAR(relative_noise({9, 10, 11}, 10), 0.14826, 1e-12);
  EXPECT_EQ(relative_noise({1, 2, 3}, 0), 0);  // no positive middle: no relative figure
}

TEST(Stats, EmptyThrows) { EXPECT_THROW(summarize({}), std::invalid_argument); }

// The one median (cuda::logic::median delegates to it): middle value, mean of the middle two.
TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_THROW(median({}), std::invalid_argument);
}

}  // namespace
}  // namespace lb
