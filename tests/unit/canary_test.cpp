#include "harness/measure/canary.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace lb {
namespace {

TEST(CanaryHistory, TheReferenceIsTheFastestUntilTenReadingsThenTheTenthPercentile) {
  CanaryHistory h;
  EXPECT_EQ(h.reference(), 0);
  EXPECT_DOUBLE_EQ(h.add(2.0), 1.0);  // the first reading is its own reference
  EXPECT_DOUBLE_EQ(h.add(1.0), 1.0);
  EXPECT_DOUBLE_EQ(h.reference(), 1.0);
  for (int i = 0; i < 8; ++i) h.add(1.5);
  // 10 readings: the 10th percentile is the second fastest, one lucky reading moves it little
  EXPECT_DOUBLE_EQ(h.reference(), 1.5);
  EXPECT_EQ(h.readings(), 10u);
}

TEST(CanaryHistory, ASlowReadingIsMeasuredAgainstTheQuietSpeed) {
  CanaryHistory h;
  for (int i = 0; i < 20; ++i) h.add(1.0);
  EXPECT_DOUBLE_EQ(h.add(2.1), 2.1);
  EXPECT_DOUBLE_EQ(h.add(1.3), 1.3);
}

// A slow period as long as most of a short run still leaves the quiet readings' speed as the
// reference while they are at least a tenth of the readings.
TEST(CanaryHistory, ALongSlowPeriodDoesNotBecomeTheReference) {
  CanaryHistory h;
  for (int i = 0; i < 10; ++i) h.add(1.0);
  for (int i = 0; i < 80; ++i) EXPECT_DOUBLE_EQ(h.add(2.0), 2.0);
  EXPECT_DOUBLE_EQ(h.reference(), 1.0);
}

TEST(CanaryReading, TimesBothUnitsOnEveryThreadCountAndKeepsTheBuffers) {
  std::vector<std::vector<std::uint64_t>> buffers;
  for (int threads : {1, 2}) {
    const CanaryReading r = take_canary_reading(threads, buffers, 3);
    EXPECT_GT(r.compute_s, 0);
    EXPECT_GT(r.memory_s, 0);
    // Each unit is about 0.1 ms; a second would be a broken unit.
    EXPECT_LT(r.compute_s, 1.0);
    EXPECT_LT(r.memory_s, 1.0);
    EXPECT_EQ(buffers.size(), std::size_t(threads));
  }
  const std::uint64_t* kept = buffers[0].data();
  take_canary_reading(1, buffers, 1);
  EXPECT_EQ(buffers[0].data(), kept);  // faulted in once, not per reading
}

TEST(MachineCanary, SummarisesEveryThreadCountAndSaysSo) {
  MachineCanary canary;
  EXPECT_EQ(canary_text(canary.summary()), "");
  const CanarySlowdown first = canary.slowdown(1);
  EXPECT_GT(first.compute, 0);
  EXPECT_GT(first.memory, 0);
  canary.slowdown(2);
  const CanarySummary s = canary.summary();
  EXPECT_EQ(s.readings, 20u);  // 9 first readings and one more, per thread count
  EXPECT_GT(s.compute_unit_s, 0);
  EXPECT_GT(s.memory_unit_s, 0);
  EXPECT_GE(s.slowest, 1.0);
  EXPECT_LE(s.slow_readings, s.readings);
  EXPECT_LE(s.memory_slow_readings, s.readings);
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j.at("readings"), 20);
  EXPECT_EQ(j.at("slow_above"), canary_slow_above);
  EXPECT_NE(canary_text(s).find("of 20 readings"), std::string::npos);
}

}  // namespace
}  // namespace lb
