// The telemetry rules (kernels/cuda/logic/telemetry.hpp): when NVML is read, which samples a cap
// throttled, and the board's power over the load window. The readings here are test data
// standing in for NVML's, played back as series chosen to make each rule's outcome obvious.
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

// A load window read every 1/64 s (binary fractions keep the times exact) whose energy counter
// steps by `step_mj` every `period` readings, the first step at reading `first`, at `power_mw`.
std::vector<NvmlReading> load_series(int readings, int first, int period,
                                     unsigned long long step_mj, unsigned power_mw) {
  std::vector<NvmlReading> load;
  unsigned long long counter = 5'000'000;
  for (int i = 0; i < readings; ++i) {
    if (i >= first && (i - first) % period == 0) counter += step_mj;
    load.push_back(reading(i / 64.0, 1980, power_mw, counter));
  }
  return load;
}

// The shortest prefix of `load` after which the window is done; 0 if none.
std::size_t readings_until_done(const std::vector<NvmlReading>& load) {
  for (std::size_t n = 1; n <= load.size(); ++n)
    if (load_window_done({load.begin(), load.begin() + static_cast<std::ptrdiff_t>(n)})) return n;
  return 0;
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
}

TEST(CudaTelemetryLogic, ReadingsTakeAtMostATenthOfTheTime) {
  // A reading that cost 1 ms is due again once 9 ms of samples ran after it.
  EXPECT_TRUE(reading_due(0.0, 0.0, 0.0));  // the first, before any sample
  EXPECT_FALSE(reading_due(10.0085, 10.0, 0.001));
  EXPECT_TRUE(reading_due(10.0095, 10.0, 0.001));
  // 0.1 ms samples and 1 ms readings: about 90 samples a reading, not one.
  int samples = 0, readings = 0;
  double now = 0, last_end = 0, cost = 0;
  while (now < 1.0) {
    if (reading_due(now, last_end, cost)) now += 0.001, last_end = now, cost = 0.001, ++readings;
    now += 0.0001, ++samples;
  }
  EXPECT_GT(samples, 80 * readings);
}

TEST(CudaTelemetryLogic, ASpanIsThrottledByTheReadingsAroundIt) {
  const std::vector<NvmlReading> readings = {reading(0, 1980, 700000, 0),
                                             reading(1, 1830, 700000, 0, reason_sw_power_cap),
                                             reading(2, 1980, 700000, 0, reason_gpu_idle)};
  EXPECT_TRUE(span_throttled(readings, {0.2, 0.8}));   // the reading after it capped
  EXPECT_TRUE(span_throttled(readings, {1.2, 1.8}));   // the reading before it capped
  EXPECT_FALSE(span_throttled(readings, {2.2, 2.5}));  // idle is no cap
  // A span after the last reading is judged by that reading until the next comes.
  EXPECT_TRUE(span_throttled({readings.begin(), readings.begin() + 2}, {1.2, 1.8}));
  EXPECT_FALSE(span_throttled({}, {0, 1}));
}

TEST(CudaTelemetryLogic, LoadPowerFromTheCounterOverAWholePeriod) {
  // A board whose counter steps every 1/8 s (8 readings) by 87.5 J: 700 W.
  const auto load = load_series(40, 3, 8, 87'500, 650'000);
  const std::size_t done = readings_until_done(load);
  EXPECT_EQ(done, 12u);  // steps at readings 3 and 11: 0.125 s apart
  const LoadPower p = load_power({load.begin(), load.begin() + 12}, 150.0);
  ASSERT_TRUE(p.watts);
  EXPECT_DOUBLE_EQ(*p.watts, 700.0);
  EXPECT_DOUBLE_EQ(p.seconds, 0.125);
  EXPECT_EQ(p.method, "energy_counter");
  EXPECT_EQ(p.counter_steps, 2);
  EXPECT_TRUE(p.why_not.empty());
}

TEST(CudaTelemetryLogic, LoadNotesGiveBothFigures) {
  EXPECT_TRUE(load_notes({}).empty());  // no window ran
  const auto notes = load_notes(load_power(load_series(20, 3, 8, 87'500, 650'000), 150.0));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], (std::pair<std::string, std::string>{
                          "load_window", "energy_counter 700 W over 0.25 s, 3 counter steps"}));
  EXPECT_EQ(notes[1], (std::pair<std::string, std::string>{"load_power_readings_w", "650"}));
  LoadPower refused;
  refused.why_not = "no load window";
  EXPECT_EQ(load_notes(refused).at(0).second, "no figure: no load window");
}

TEST(CudaTelemetryLogic, AFastCounterStillNeedsTheMinimumSpan) {
  // Steps every other reading: two come within 2/64 s, too short for the reading's lateness.
  const auto load = load_series(40, 1, 2, 10'000, 650'000);
  const std::size_t done = readings_until_done(load);
  EXPECT_EQ(done, 10u);  // the step at reading 9 is 8/64 s after the first
  EXPECT_GE((done - 2) / 64.0, load_min_span_s);
  EXPECT_LT((done - 4) / 64.0, load_min_span_s);
  EXPECT_DOUBLE_EQ(*load_power({load.begin(), load.begin() + 10}, 100.0).watts, 320.0);
}

TEST(CudaTelemetryLogic, WithoutACounterTheLatePowerReadingsAreUsed) {
  // No counter: the window runs its full length and the second half's median power is taken
  // (NVML's power is a 1 s average, so the first half still holds the idle before).
  std::vector<NvmlReading> load;
  for (int i = 0; i <= 128; ++i) {
    load.push_back(reading(i / 64.0, 1980, i < 64 ? 200'000 : 690'000, 0));
    load.back().energy_mj.reset();
  }
  EXPECT_EQ(readings_until_done(load), 129u);  // 2 s
  const LoadPower p = load_power(load, 90.0);
  ASSERT_TRUE(p.watts);
  EXPECT_DOUBLE_EQ(*p.watts, 690.0);
  EXPECT_DOUBLE_EQ(p.seconds, 2.0);
  EXPECT_EQ(p.method, "power_readings");
  EXPECT_EQ(p.why_not, "no energy counter reading at load reading 1");
}

TEST(CudaTelemetryLogic, ACounterThatWentBackOrStoodStillFallsBackToPower) {
  auto load = load_series(129, 3, 8, 87'500, 700'000);
  load[30].energy_mj = 10;  // wrapped or reset
  const LoadPower back = load_power(load, 90.0);
  EXPECT_EQ(back.method, "power_readings");
  EXPECT_NE(back.why_not.find("went backwards (wrapped or reset) at load reading 31"),
            std::string::npos);
  const LoadPower still = load_power(load_series(129, 200, 8, 1, 700'000), 90.0);
  EXPECT_EQ(still.method, "power_readings");
  EXPECT_EQ(still.counter_steps, 0);
  EXPECT_NE(still.why_not.find("stepped 0 times in 2 s"), std::string::npos) << still.why_not;
}

TEST(CudaTelemetryLogic, PowerNotAboveIdleIsRefused) {
  // 700 W from the counter under a board that idled at 720 W: not a reading of this load.
  const LoadPower p = load_power(load_series(20, 3, 8, 87'500, 650'000), 720.0);
  EXPECT_FALSE(p.watts);
  EXPECT_TRUE(p.method.empty());
  EXPECT_NE(p.why_not.find("implausible: 700 W (energy_counter)"), std::string::npos) << p.why_not;
  EXPECT_NE(p.why_not.find("720 W the board drew before any work"), std::string::npos);
  // Without an idle reading the figure is kept.
  EXPECT_TRUE(load_power(load_series(20, 3, 8, 87'500, 650'000), std::nullopt).watts);
  EXPECT_EQ(load_power({}, 100.0).why_not, "no load window");
}

TEST(CudaTelemetryLogic, SummaryOfReadingsSpansAndLoad) {
  const std::vector<NvmlReading> readings = {
      reading(0.0, 1980, 500000, 0), reading(0.1, 1755, 600000, 0, reason_sw_power_cap),
      reading(0.2, 1410, 700000, 0, reason_sw_thermal_slowdown), reading(0.3, 1980, 500000, 0)};
  const std::vector<SampleSpan> spans = {{0.01, 0.02}, {0.03, 0.05}, {0.21, 0.25}, {0.31, 0.32}};
  LoadPower load;
  load.watts = 700.0, load.seconds = 0.25, load.method = "energy_counter";
  const DeviceTelemetry t = summarize_telemetry(readings, spans, load, {}, false);
  EXPECT_EQ(t.source, "nvml");
  EXPECT_EQ(t.samples, 4);
  EXPECT_EQ(*t.sm_clock_min_mhz, 1410);
  EXPECT_EQ(*t.sm_clock_median_mhz, (1755 + 1980) / 2.0);
  EXPECT_EQ(*t.memory_clock_median_mhz, 2619);
  EXPECT_DOUBLE_EQ(*t.power_median_w, 550.0);
  EXPECT_DOUBLE_EQ(*t.energy_j, 175.0);
  EXPECT_EQ(t.energy_method, "energy_counter");
  EXPECT_DOUBLE_EQ(t.window_s, 0.25);
  EXPECT_EQ(t.throttled_samples, 3);  // the last span follows a reading without a cap
  EXPECT_EQ(t.clock_event_reasons,
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_TRUE(t.absent.empty());
  EXPECT_DOUBLE_EQ(*joules_per_run(t, 0.001), 0.7);  // 700 W over a 1 ms run
}

TEST(CudaTelemetryLogic, AbsentFieldsSayWhy) {
  NvmlReading bare;
  bare.time_s = 1;
  LoadPower none;
  none.why_not = "no load window";
  const DeviceTelemetry t = summarize_telemetry(
      {bare, bare}, {{1, 2}}, none, {{"power", "nvmlDeviceGetPowerUsage: not supported"}}, true);
  EXPECT_TRUE(t.device_lost);
  EXPECT_FALSE(t.sm_clock_median_mhz);
  EXPECT_EQ(t.absent.at("power"), "nvmlDeviceGetPowerUsage: not supported");
  EXPECT_EQ(t.absent.at("sm_clock"), "the GPU was lost");
  EXPECT_EQ(t.absent.at("clock_event_reasons"), "the GPU was lost");
  EXPECT_EQ(t.absent.at("energy"), "no load window");
  EXPECT_FALSE(joules_per_run(t, 0.01));
  // A figure with a caveat keeps it under the counter's name.
  LoadPower readings_only;
  readings_only.watts = 600.0, readings_only.seconds = 2, readings_only.method = "power_readings";
  readings_only.why_not = "no energy counter reading at load reading 1";
  const DeviceTelemetry r = summarize_telemetry({}, {}, readings_only, {}, false);
  EXPECT_EQ(r.absent.at("energy_counter"), "no energy counter reading at load reading 1");
  EXPECT_DOUBLE_EQ(*r.energy_j, 1200.0);
}

}  // namespace
}  // namespace lb::cuda::logic
