// The telemetry summary over a point's samples (kernels/cuda/logic/telemetry.hpp). The readings
// here are test data standing in for NVML's, chosen to make each rule's outcome obvious.
#include <gtest/gtest.h>

#include "kernels/cuda/logic/telemetry.hpp"

namespace lb::cuda::logic {
namespace {

NvmlReading reading(double t, unsigned sm, unsigned power_mw, unsigned long long energy_mj,
                    unsigned long long reasons = 0) {
  NvmlReading r;
  r.time_s = t;
  r.sm_mhz = sm;
  r.memory_mhz = 2619;
  r.power_mw = power_mw;
  r.energy_mj = energy_mj;
  r.event_reasons = reasons;
  return r;
}

TEST(CudaTelemetryLogic, ReasonNamesFollowNvmlBits) {
  EXPECT_TRUE(reason_names(0).empty());
  EXPECT_EQ(reason_names(0x4), std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(reason_names(0x1 | 0x40),
            (std::vector<std::string>{"gpu_idle", "hw_thermal_slowdown"}));
  EXPECT_EQ(reason_names(0x100 | 0x200),
            (std::vector<std::string>{"display_clock_setting", "unknown_0x200"}));
}

TEST(CudaTelemetryLogic, OnlyPowerAndThermalCapsThrottle) {
  for (unsigned long long bit : {0x4ull, 0x8ull, 0x20ull, 0x40ull, 0x80ull})
    EXPECT_TRUE(cap_throttled(bit)) << bit;
  for (unsigned long long bit : {0x0ull, 0x1ull, 0x2ull, 0x10ull, 0x100ull})
    EXPECT_FALSE(cap_throttled(bit)) << bit;
  SampleReadings s{reading(0, 1980, 500000, 0), reading(1, 1980, 500000, 0, 0x4)};
  EXPECT_TRUE(sample_throttled(s));
  s.after.event_reasons.reset();
  EXPECT_FALSE(sample_throttled(s));
}

TEST(CudaTelemetryLogic, EnergyFromCounterDeltas) {
  // Two windows of 0.5 s; the counter advances 300 mJ and 200 mJ in them.
  std::vector<SampleReadings> samples = {
      {reading(0.0, 1980, 600000, 1000), reading(0.5, 1980, 600000, 1300)},
      {reading(1.0, 1980, 400000, 2000), reading(1.5, 1980, 400000, 2200)}};
  const EnergyEstimate e = energy_over(samples);
  ASSERT_TRUE(e.joules);
  EXPECT_DOUBLE_EQ(*e.joules, 0.5);
  EXPECT_EQ(e.method, "energy_counter");
  EXPECT_TRUE(e.why_not_counter.empty());
}

TEST(CudaTelemetryLogic, CounterGoingBackwardsFallsBackToPower) {
  // The counter goes back in the second sample: power integrated instead, (600 W over 0.5 s) +
  // (400 W over 0.5 s) = 500 J.
  std::vector<SampleReadings> samples = {
      {reading(0.0, 1980, 600000, 1000), reading(0.5, 1980, 600000, 1300)},
      {reading(1.0, 1980, 400000, 5000), reading(1.5, 1980, 400000, 10)}};
  const EnergyEstimate e = energy_over(samples);
  ASSERT_TRUE(e.joules);
  EXPECT_DOUBLE_EQ(*e.joules, 500.0);
  EXPECT_EQ(e.method, "power_integrated");
  EXPECT_NE(e.why_not_counter.find("backwards"), std::string::npos);
  EXPECT_NE(e.why_not_counter.find("sample 2"), std::string::npos);
}

TEST(CudaTelemetryLogic, ACounterThatStoodStillWhilePowerWasDrawnFallsBackToPower) {
  // The counter stands still over the second 10 ms window while 500 W are drawn: its updates are
  // coarser than the windows, so power is integrated: 2 x 500 W x 0.01 s = 10 J.
  std::vector<SampleReadings> samples = {
      {reading(0.0, 1980, 500000, 1000), reading(0.01, 1980, 500000, 9000)},
      {reading(0.02, 1980, 500000, 9000), reading(0.03, 1980, 500000, 9000)}};
  const EnergyEstimate e = energy_over(samples);
  ASSERT_TRUE(e.joules);
  EXPECT_DOUBLE_EQ(*e.joules, 10.0);
  EXPECT_EQ(e.method, "power_integrated");
  EXPECT_NE(e.why_not_counter.find("did not advance over sample 2 (10 ms)"), std::string::npos)
      << e.why_not_counter;
  // An idle board (no power drawn) may leave the counter still: the counter is kept.
  for (auto& s : samples) s.before.power_mw = s.after.power_mw = 0;
  EXPECT_EQ(energy_over(samples).method, "energy_counter");
}

TEST(CudaTelemetryLogic, MissingCounterIntegratesTrapezoids) {
  std::vector<SampleReadings> samples = {
      {reading(0.0, 1980, 200000, 0), reading(2.0, 1980, 400000, 0)}};
  samples[0].before.energy_mj.reset();
  const EnergyEstimate e = energy_over(samples);
  ASSERT_TRUE(e.joules);
  EXPECT_DOUBLE_EQ(*e.joules, 600.0);  // (200 W + 400 W) / 2 over 2 s
  EXPECT_EQ(e.method, "power_integrated");
  EXPECT_NE(e.why_not_counter.find("no energy counter reading around sample 1"), std::string::npos);
  samples[0].after.power_mw.reset();
  EXPECT_FALSE(energy_over(samples).joules);
  EXPECT_TRUE(energy_over(samples).method.empty());
}

TEST(CudaTelemetryLogic, SummaryTakesMinMedianAndMarksThrottledSamples) {
  std::vector<SampleReadings> samples = {
      {reading(0.0, 1980, 500000, 0), reading(0.1, 1980, 500000, 100)},
      {reading(0.2, 1980, 600000, 100), reading(0.3, 1755, 700000, 200, 0x4)},
      {reading(0.4, 1410, 700000, 200, 0x20), reading(0.5, 1410, 700000, 300, 0x20)}};
  const DeviceTelemetry t = summarize_telemetry(samples, {}, false);
  EXPECT_EQ(t.source, "nvml");
  EXPECT_EQ(t.samples, 3);
  EXPECT_EQ(*t.sm_clock_min_mhz, 1410);
  EXPECT_EQ(*t.sm_clock_median_mhz, (1755 + 1980) / 2.0);
  EXPECT_EQ(*t.memory_clock_median_mhz, 2619);
  EXPECT_DOUBLE_EQ(*t.power_median_w, 650.0);
  EXPECT_DOUBLE_EQ(*t.energy_j, 0.3);
  EXPECT_EQ(t.energy_method, "energy_counter");
  EXPECT_NEAR(t.window_s, 0.3, 1e-12);
  EXPECT_EQ(t.throttled_samples, 2);
  EXPECT_EQ(t.clock_event_reasons,
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_TRUE(t.absent.empty());
  EXPECT_NEAR(*joules_per_run(t, 0.05), 0.3 / 0.3 * 0.05, 1e-12);
}

TEST(CudaTelemetryLogic, AbsentFieldsSayWhy) {
  NvmlReading bare;
  bare.time_s = 1;
  const DeviceTelemetry t = summarize_telemetry(
      {{bare, bare}}, {{"power", "nvmlDeviceGetPowerUsage: not supported"}}, true);
  EXPECT_TRUE(t.device_lost);
  EXPECT_FALSE(t.sm_clock_median_mhz);
  EXPECT_EQ(t.absent.at("power"), "nvmlDeviceGetPowerUsage: not supported");
  EXPECT_EQ(t.absent.at("sm_clock"), "the GPU was lost");
  EXPECT_EQ(t.absent.at("clock_event_reasons"), "the GPU was lost");
  EXPECT_FALSE(joules_per_run(t, 0.01));
  EXPECT_EQ(summarize_telemetry({}, {}, false).absent.at("energy_counter"), "no samples");
}

}  // namespace
}  // namespace lb::cuda::logic
