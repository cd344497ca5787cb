// The sustained mode's settle criterion and burst/sustained rates (kernels/cuda/logic/
// sustained.hpp) on played-back NVML series. TEST DATA: the series are made up; the one that
// settles is shaped after mamf-finder's H200 report (about 1980 MHz in a burst, 1465 MHz at about
// 693 W sustained), not read from a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cuda/logic/sustained.hpp"

namespace lb::cuda::logic {
namespace {

NvmlReading at(double t, double watts, double mhz) {
  NvmlReading r;
  r.time_s = t;
  r.power_mw = static_cast<unsigned>(watts * 1e3);
  r.sm_mhz = static_cast<unsigned>(mhz);
  return r;
}

// A reading every half second for `seconds`; `shape` gives (watts, MHz) at a time.
template <class Shape>
std::vector<NvmlReading> series(double seconds, Shape shape) {
  std::vector<NvmlReading> out;
  for (double t = 0; t <= seconds; t += 0.5) {
    const auto [watts, mhz] = shape(t);
    out.push_back(at(t, watts, mhz));
  }
  return out;
}

// Boost for 10 s, the clock falling to its sustained value by 20 s, then steady.
std::pair<double, double> burst_then_cap(double t) {
  if (t < 10) return {650, 1980};
  if (t < 20) return {693, 1980 - (t - 10) / 10 * (1980 - 1465)};
  return {693, 1465};
}

TEST(CudaSustained, ASeriesThatSettlesIsSettledWithItsLastWindowsMedians) {
  const SettleCriterion criterion;  // 5 s windows, 2%, 300 s
  const SettleVerdict v = settle(series(30, burst_then_cap), criterion);
  EXPECT_EQ(v.state, SettleState::settled);
  EXPECT_DOUBLE_EQ(*v.power_w, 693);
  EXPECT_DOUBLE_EQ(*v.sm_mhz, 1465);
  // Mid-fall, at 15 s: the clock's window medians differ by more than 2%, keep running.
  EXPECT_EQ(settle(series(15, burst_then_cap), criterion).state, SettleState::running);
}

// Less than two windows of readings cannot be judged, even if flat.
TEST(CudaSustained, AShortSeriesIsStillRunning) {
  const auto flat = [](double) { return std::pair{300.0, 1500.0}; };
  const SettleVerdict v = settle(series(9.5, flat), {});
  EXPECT_EQ(v.state, SettleState::running);
  EXPECT_DOUBLE_EQ(*v.power_w, 300);  // the last window is complete
  EXPECT_EQ(settle({}, {}).state, SettleState::running);
}

// The clock keeps falling 1% a second: never within 2% between 5 s windows, so the bound ends it.
TEST(CudaSustained, ASeriesThatNeverSettlesStopsAtTheBound) {
  SettleCriterion criterion;
  criterion.max_s = 60;
  const auto falling = [](double t) { return std::pair{600.0, 1980 * std::pow(0.99, t)}; };
  EXPECT_EQ(settle(series(59.5, falling), criterion).state, SettleState::running);
  const SettleVerdict v = settle(series(60, falling), criterion);
  EXPECT_EQ(v.state, SettleState::bound_reached);
  ASSERT_TRUE(v.sm_mhz);
  EXPECT_LT(*v.sm_mhz, 1980 * std::pow(0.99, 55));  // the last window's, not the burst's
}

TEST(CudaSustained, AMissingCounterIsNamedWithItsReading) {
  auto readings = series(30, burst_then_cap);
  readings[2].power_mw.reset();
  SettleVerdict v = settle(readings, {});
  EXPECT_EQ(v.state, SettleState::counter_missing);
  EXPECT_EQ(v.why, "no board power (nvmlDeviceGetPowerUsage) reading at reading 3");
  readings = series(30, burst_then_cap);
  readings.back().sm_mhz.reset();
  v = settle(readings, {});
  EXPECT_EQ(v.state, SettleState::counter_missing);
  EXPECT_NE(v.why.find("SM clock"), std::string::npos);
}

// Runs of 10 ms for the first 2 s, then 12 ms: the burst is the first window's rate, the
// sustained the last's (100 GFLOP a run: 10 and 8.33 TFLOP/s).
TEST(CudaSustained, BurstAndSustainedAreTheFirstAndLastWindowsRates) {
  std::vector<TimedRun> runs;
  double t = 0;
  while (t < 10) {
    const double seconds = t < 2 ? 0.010 : 0.012;
    t += seconds;
    runs.push_back({t, seconds});
  }
  const BurstAndSustained rates = burst_and_sustained(runs, 100, 1);
  EXPECT_NEAR(*rates.burst_tflops, 10, 1e-9);
  EXPECT_NEAR(*rates.sustained_tflops, 100 / 12.0, 1e-9);
  EXPECT_FALSE(burst_and_sustained({}, 100, 1).burst_tflops);
}

// About 0.1 s of launches between readings, from 1 to 10000.
TEST(CudaSustained, LaunchesBetweenReadingsLastAboutATenthOfASecond) {
  EXPECT_EQ(launches_per_reading(1.3e-3), 77);  // ceil(76.9)
  EXPECT_EQ(launches_per_reading(0.5), 1);
  EXPECT_EQ(launches_per_reading(1e-9), 10000);
  EXPECT_EQ(launches_per_reading(0), 1);  // no warm-up time to go by
}

TEST(CudaSustained, TheNotesSayTheOutcomeAndTheFiguresKnown) {
  using Notes = std::vector<std::pair<std::string, std::string>>;
  const SettleCriterion criterion;
  SettleVerdict settled;
  settled.state = SettleState::settled;
  settled.power_w = 693;
  settled.sm_mhz = 1465;
  BurstAndSustained rates;
  rates.burst_tflops = 842;
  rates.sustained_tflops = 709;
  EXPECT_EQ(sustained_notes(settled, rates, criterion, 34.56),
            (Notes{{"sustained", "settled: power and SM clock within 2% over two windows"},
                   {"sustained_s", "34.6"},
                   {"burst_tflops", "842"},
                   {"sustained_tflops", "709"},
                   {"sustained_power_w", "693"},
                   {"sustained_sm_mhz", "1465"}}));
  SettleVerdict bound;
  bound.state = SettleState::bound_reached;
  EXPECT_EQ(sustained_notes(bound, {}, criterion, 120),
            (Notes{{"sustained", "not settled within 120 s"}, {"sustained_s", "120.0"}}));
  SettleVerdict missing;
  missing.state = SettleState::counter_missing;
  missing.why = "no board power (nvmlDeviceGetPowerUsage) reading at reading 1";
  EXPECT_EQ(sustained_notes(missing, {}, criterion, 0).front().second, missing.why);
}

// The sustained loop keeps to half the point's --point-timeout, so the watchdog never finds it
// stuck; without a bound, or with a long one, it keeps its own.
TEST(CudaSustained, TheBoundIsAtMostHalfThePointsTimeBound) {
  EXPECT_DOUBLE_EQ(criterion_within(0).max_s, SettleCriterion{}.max_s);
  EXPECT_DOUBLE_EQ(criterion_within(1000).max_s, SettleCriterion{}.max_s);
  EXPECT_DOUBLE_EQ(criterion_within(20).max_s, 10);
  const auto falling = [](double t) { return std::pair{600.0, 1980 * std::pow(0.99, t)}; };
  EXPECT_EQ(settle(series(9.5, falling), criterion_within(20)).state, SettleState::running);
  EXPECT_EQ(settle(series(10, falling), criterion_within(20)).state, SettleState::bound_reached);
}

}  // namespace
}  // namespace lb::cuda::logic
