// The NVML reader (kernels/cuda/nvml/nvml_telemetry.hpp) loaded against stand-in libraries that
// play back scripts (tests/unit/lib/fake_nvml.cpp). The scripts' clocks, watts and joules are test
// data, not readings of any GPU. No GPU is needed.
#include <gtest/gtest.h>

#if !LAYERBENCH_HAVE_CUDA
TEST(NvmlTelemetry, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/cuda/nvml/nvml_telemetry.hpp"

namespace lb::cuda {
namespace {

// A reading's time step: about 1 ms, a binary fraction so that the times add up exactly.
constexpr double tick_s = 1.0 / 1024;

class NvmlTelemetryTest : public ::testing::Test {
 protected:
  // Writes `lines` as the script and opens `library` with a clock that advances a tick a reading.
  std::unique_ptr<NvmlTelemetry> open(const std::string& lines,
                                      const std::string& library = FAKE_NVML_LIBRARY) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("fake_nvml_" + std::to_string(::getpid()) + ".txt");
    std::ofstream(path) << "# test data\n" << lines;
    ::setenv("LAYERBENCH_FAKE_NVML_SCRIPT", path.c_str(), 1);
    auto reader = std::make_unique<NvmlTelemetry>("00000000:00:00.0", library,
                                                  [this] { return (ticks_++) * tick_s; });
    std::filesystem::remove(path);
    return reader;
  }
  static std::vector<logic::NvmlReading> readings(NvmlTelemetry& nvml, int n) {
    std::vector<logic::NvmlReading> out;
    for (int i = 0; i < n; ++i) out.push_back(nvml.read());
    return out;
  }
  // Reads a load window until it is done (at most `most` readings).
  static std::vector<logic::NvmlReading> load_window(NvmlTelemetry& nvml, int most = 5000) {
    std::vector<logic::NvmlReading> load{nvml.read()};
    while (!logic::load_window_done(load) && static_cast<int>(load.size()) < most)
      load.push_back(nvml.read());
    return load;
  }
  int ticks_ = 0;
};

// Script lines of a board at `power_mw` whose counter steps by `step_mj` every `period`
// readings, the first step at reading `first`.
std::string counter_script(int lines, int first, int period, unsigned long long step_mj,
                           unsigned power_mw) {
  std::string script;
  unsigned long long counter = 1000;
  for (int i = 0; i < lines; ++i) {
    if (i >= first && (i - first) % period == 0) counter += step_mj;
    script += "1980 2619 " + std::to_string(power_mw) + " " + std::to_string(counter) + " 0\n";
  }
  return script;
}

TEST_F(NvmlTelemetryTest, LoadPowerFromTheCounter) {
  // Steps every 64 readings (1/16 s) by 43.75 J: 700 W; at 10 and 74 they span 0.0625 s, short
  // of load_min_span_s, so the window waits for the step at 138.
  auto nvml = open(counter_script(400, 10, 64, 43'750, 650'000));
  ASSERT_EQ(nvml->error(), "");
  const auto load = load_window(*nvml);
  EXPECT_EQ(load.size(), 139u);
  const logic::LoadPower p = logic::load_power(load, 120.0);
  ASSERT_TRUE(p.watts);
  EXPECT_DOUBLE_EQ(*p.watts, 700.0);
  EXPECT_DOUBLE_EQ(p.seconds, 0.125);
  EXPECT_EQ(p.method, "energy_counter");
  EXPECT_EQ(p.counter_steps, 3);
  const DeviceTelemetry t = logic::summarize_telemetry(load, {}, p, nvml->absent(), nvml->lost());
  EXPECT_DOUBLE_EQ(*t.energy_j, 87.5);
  EXPECT_EQ(*t.sm_clock_min_mhz, 1980);
  EXPECT_DOUBLE_EQ(*t.power_median_w, 650.0);
  EXPECT_EQ(*t.memory_clock_median_mhz, 2619);
  EXPECT_TRUE(t.clock_event_reasons.empty());
  EXPECT_TRUE(t.absent.empty());
}

TEST_F(NvmlTelemetryTest, MissingEnergyCounterUsesThePowerReadings) {
  auto nvml = open("1980 2619 500000 - 0\n");  // the last line answers from there on
  const auto load = load_window(*nvml);
  EXPECT_DOUBLE_EQ(load.back().time_s - load.front().time_s, logic::load_window_max_s);
  const logic::LoadPower p = logic::load_power(load, 90.0);
  EXPECT_EQ(p.method, "power_readings");
  EXPECT_DOUBLE_EQ(*p.watts, 500.0);
  EXPECT_EQ(nvml->absent().at("energy_counter"),
            "nvmlDeviceGetTotalEnergyConsumption: Not Supported");
}

TEST_F(NvmlTelemetryTest, WrappingCounterUsesThePowerReadings) {
  auto nvml = open("1980 2619 400000 18446744073709551000 0\n1980 2619 400000 200 0\n");
  const logic::LoadPower p = logic::load_power(readings(*nvml, 3), 90.0);
  EXPECT_EQ(p.method, "power_readings");
  EXPECT_DOUBLE_EQ(*p.watts, 400.0);
  EXPECT_NE(p.why_not.find("went backwards"), std::string::npos);
}

TEST_F(NvmlTelemetryTest, DeviceLostMidRun) {
  auto nvml = open(
      "1980 2619 600000 1000 0\n1980 2619 600000 1300 0\n"
      "lost lost lost lost lost\n");
  const auto r = readings(*nvml, 4);
  EXPECT_TRUE(nvml->lost());
  EXPECT_TRUE(r[1].sm_mhz);
  EXPECT_FALSE(r[2].sm_mhz);
  EXPECT_FALSE(r[3].power_mw);  // nothing is asked once the GPU is lost
  const DeviceTelemetry t =
      logic::summarize_telemetry(r, {}, logic::load_power(r, 90.0), nvml->absent(), nvml->lost());
  EXPECT_TRUE(t.device_lost);
  EXPECT_EQ(t.absent.at("sm_clock"), "nvmlDeviceGetClockInfo(NVML_CLOCK_SM): GPU is lost");
  EXPECT_FALSE(t.energy_j);  // the counter stopped and so did the power
  EXPECT_EQ(*t.sm_clock_median_mhz, 1980);
}

TEST_F(NvmlTelemetryTest, ThrottleStartingHalfWay) {
  auto nvml = open(
      "1980 2619 690000 0 0\n1980 2619 690000 10 0\n1980 2619 690000 20 0\n"
      "1980 2619 690000 30 0\n1755 2619 700000 40 0x4\n1755 2619 700000 50 0x4\n"
      "1410 2619 700000 60 0x24\n1410 2619 700000 70 0x24\n");
  const auto r = readings(*nvml, 8);
  std::vector<logic::SampleSpan> spans;  // one sample after each reading
  for (const auto& reading : r)
    spans.push_back({reading.time_s + tick_s / 4, reading.time_s + tick_s / 2});
  EXPECT_FALSE(logic::span_throttled(r, spans[2]));
  EXPECT_TRUE(logic::span_throttled(r, spans[3]));  // the reading after it is capped
  const DeviceTelemetry t = logic::summarize_telemetry(r, spans, {}, nvml->absent(), nvml->lost());
  EXPECT_EQ(t.samples, 8);
  EXPECT_EQ(t.throttled_samples, 5);
  EXPECT_EQ(t.clock_event_reasons,
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(*t.sm_clock_min_mhz, 1410);
}

TEST_F(NvmlTelemetryTest, OlderNameAndNoEnergyFunction) {
  auto nvml = open("1980 2619 500000 0 0x4\n", FAKE_NVML_LEGACY_LIBRARY);
  const auto r = readings(*nvml, 3);
  const DeviceTelemetry t =
      logic::summarize_telemetry(r, {}, logic::load_power(r, 90.0), nvml->absent(), nvml->lost());
  EXPECT_EQ(t.clock_event_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(t.energy_method, "power_readings");
  EXPECT_NE(t.absent.at("energy_counter").find("lacks the function"), std::string::npos);
}

TEST_F(NvmlTelemetryTest, NoLibraryMeansNoReadings) {
  auto nvml = open("1980 2619 500000 0 0\n", "/nonexistent/libnvidia-ml.so.1");
  EXPECT_NE(nvml->error().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
  const logic::NvmlReading r = nvml->read();
  EXPECT_FALSE(r.sm_mhz);
  EXPECT_FALSE(r.energy_mj);
  EXPECT_FALSE(nvml->default_mhz());
}

TEST_F(NvmlTelemetryTest, NotSupportedFieldIsNotAskedAgain) {
  auto nvml = open("1980 - 500000 0 0\n1980 2619 500000 0 0\n");
  EXPECT_FALSE(nvml->read().memory_mhz);
  EXPECT_FALSE(nvml->read().memory_mhz);  // line 2 has one, but the field is out for good
  EXPECT_EQ(nvml->absent().at("memory_clock"),
            "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM): Not Supported");
}

}  // namespace
}  // namespace lb::cuda

#endif
