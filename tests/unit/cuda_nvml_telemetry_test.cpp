// The NVML reader (kernels/cuda/nvml_telemetry.hpp) loaded against stand-in libraries that play
// back scripts (tests/unit/lib/fake_nvml.cpp). The scripts' clocks, watts and joules are test
// data, not readings of any GPU. No GPU is needed.
#include <gtest/gtest.h>

#if !LAYERBENCH_HAVE_CUDA
TEST(NvmlTelemetry, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/cuda/nvml_telemetry.hpp"

namespace lb::cuda {
namespace {

class NvmlTelemetryTest : public ::testing::Test {
 protected:
  // Writes `lines` as the script and opens `library` with a clock that advances 1 ms a reading.
  std::unique_ptr<NvmlTelemetry> open(const std::string& lines,
                                      const std::string& library = FAKE_NVML_LIBRARY) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("fake_nvml_" + std::to_string(::getpid()) + ".txt");
    std::ofstream(path) << "# test data\n" << lines;
    ::setenv("LAYERBENCH_FAKE_NVML_SCRIPT", path.c_str(), 1);
    auto reader = std::make_unique<NvmlTelemetry>("00000000:00:00.0", library,
                                                  [this] { return (ticks_++) * 1e-3; });
    std::filesystem::remove(path);
    return reader;
  }
  // `n` samples: a reading before and after each.
  static std::vector<logic::SampleReadings> samples(NvmlTelemetry& nvml, int n) {
    std::vector<logic::SampleReadings> out;
    for (int i = 0; i < n; ++i) {
      logic::SampleReadings s;
      s.before = nvml.read();
      s.after = nvml.read();
      out.push_back(s);
    }
    return out;
  }
  static DeviceTelemetry summary(NvmlTelemetry& nvml, int n) {
    const auto readings = samples(nvml, n);
    return logic::summarize_telemetry(readings, nvml.absent(), nvml.lost());
  }
  int ticks_ = 0;
};

TEST_F(NvmlTelemetryTest, EnergyFromTheCounter) {
  auto nvml = open(
      "1980 2619 600000 1000 0\n1980 2619 600000 1600 0\n"
      "1965 2619 610000 2000 0\n1965 2619 610000 2500 0\n");
  ASSERT_EQ(nvml->error(), "");
  const DeviceTelemetry t = summary(*nvml, 2);
  EXPECT_EQ(t.samples, 2);
  EXPECT_EQ(t.energy_method, "energy_counter");
  EXPECT_DOUBLE_EQ(*t.energy_j, 1.1);  // (1600 - 1000) + (2500 - 2000) mJ
  EXPECT_EQ(*t.sm_clock_min_mhz, 1965);
  EXPECT_DOUBLE_EQ(*t.power_median_w, 605.0);
  EXPECT_EQ(*t.memory_clock_median_mhz, 2619);
  EXPECT_TRUE(t.clock_event_reasons.empty());
  EXPECT_TRUE(t.absent.empty());
}

TEST_F(NvmlTelemetryTest, MissingEnergyCounterIntegratesPower) {
  auto nvml = open("1980 2619 500000 - 0\n1980 2619 700000 - 0\n");
  const DeviceTelemetry t = summary(*nvml, 1);
  EXPECT_EQ(t.energy_method, "power_integrated");
  EXPECT_NEAR(*t.energy_j, 0.6, 1e-12);  // (500 W + 700 W) / 2 over the 1 ms between readings
  EXPECT_EQ(t.absent.at("energy_counter"), "nvmlDeviceGetTotalEnergyConsumption: Not Supported");
}

TEST_F(NvmlTelemetryTest, WrappingCounterIntegratesPower) {
  auto nvml = open("1980 2619 400000 18446744073709551000 0\n1980 2619 400000 200 0\n");
  const DeviceTelemetry t = summary(*nvml, 1);
  EXPECT_EQ(t.energy_method, "power_integrated");
  EXPECT_NEAR(*t.energy_j, 0.4, 1e-12);
  EXPECT_NE(t.absent.at("energy_counter").find("went backwards"), std::string::npos);
}

TEST_F(NvmlTelemetryTest, DeviceLostMidRun) {
  auto nvml = open(
      "1980 2619 600000 1000 0\n1980 2619 600000 1300 0\n"
      "lost lost lost lost lost\n");
  const auto readings = samples(*nvml, 3);
  EXPECT_TRUE(nvml->lost());
  EXPECT_TRUE(readings[0].after.sm_mhz);
  EXPECT_FALSE(readings[1].before.sm_mhz);
  EXPECT_FALSE(readings[2].after.power_mw);  // nothing is asked once the GPU is lost
  const DeviceTelemetry t = logic::summarize_telemetry(readings, nvml->absent(), nvml->lost());
  EXPECT_TRUE(t.device_lost);
  EXPECT_EQ(t.absent.at("sm_clock"), "nvmlDeviceGetClockInfo(NVML_CLOCK_SM): GPU is lost");
  EXPECT_FALSE(t.energy_j);  // neither counter nor power around samples 2 and 3
  EXPECT_EQ(*t.sm_clock_median_mhz, 1980);
}

TEST_F(NvmlTelemetryTest, ThrottleStartingHalfWay) {
  auto nvml = open(
      "1980 2619 690000 0 0\n1980 2619 690000 10 0\n1980 2619 690000 20 0\n"
      "1980 2619 690000 30 0\n1755 2619 700000 40 0x4\n1755 2619 700000 50 0x4\n"
      "1410 2619 700000 60 0x24\n1410 2619 700000 70 0x24\n");
  const auto readings = samples(*nvml, 4);
  EXPECT_FALSE(logic::sample_throttled(readings[1]));
  EXPECT_TRUE(logic::sample_throttled(readings[2]));
  const DeviceTelemetry t = logic::summarize_telemetry(readings, nvml->absent(), nvml->lost());
  EXPECT_EQ(t.throttled_samples, 2);
  EXPECT_EQ(t.clock_event_reasons,
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(*t.sm_clock_min_mhz, 1410);
}

TEST_F(NvmlTelemetryTest, OlderNameAndNoEnergyFunction) {
  auto nvml = open("1980 2619 500000 0 0x4\n", FAKE_NVML_LEGACY_LIBRARY);
  const DeviceTelemetry t = summary(*nvml, 1);
  EXPECT_EQ(t.clock_event_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(t.energy_method, "power_integrated");
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
