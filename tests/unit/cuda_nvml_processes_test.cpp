// The compute-process list (kernels/cuda/nvml/nvml_processes.hpp) read from the stand-in NVML
// (tests/unit/lib/fake_nvml.cpp), whose processes are test data, not any GPU's. No GPU is needed.
#include <gtest/gtest.h>

#if !LAYERBENCH_HAVE_CUDA
TEST(NvmlProcesses, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/cuda/nvml/nvml_processes.hpp"

namespace lb::cuda {
namespace {

constexpr const char* bus_id = "00000000:00:00.0";

class NvmlProcessesTest : public ::testing::Test {
 protected:
  // The stand-in initialises only with a script of readings: one line, whose values are unused.
  void SetUp() override {
    std::ofstream(script_) << "# test data\n1980 2619 300000 1000 0\n";
    ::setenv("LAYERBENCH_FAKE_NVML_SCRIPT", script_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("LAYERBENCH_FAKE_NVML_PROCESSES");
    std::filesystem::remove(script_);
  }
  const std::filesystem::path script_ = std::filesystem::temp_directory_path() /
                                        ("fake_nvml_processes_" + std::to_string(::getpid()));
};

TEST_F(NvmlProcessesTest, EachProcessWithItsMemoryOrNoneWhereNvmlDoesNotTell) {
  std::string error;
  const auto found = nvml_compute_processes(bus_id, error, FAKE_NVML_LIBRARY);
  ASSERT_TRUE(found) << error;
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ((*found)[0].pid, 100u);
  EXPECT_EQ((*found)[0].used_bytes, 1u << 20);
  EXPECT_EQ((*found)[1].pid, 101u);
  EXPECT_EQ((*found)[1].used_bytes, std::nullopt);
}

TEST_F(NvmlProcessesTest, MoreProcessesThanTheFirstAskHasRoomForAreAllRead) {
  ::setenv("LAYERBENCH_FAKE_NVML_PROCESSES", "70", 1);
  std::string error;
  const auto found = nvml_compute_processes(bus_id, error, FAKE_NVML_LIBRARY);
  ASSERT_TRUE(found) << error;
  ASSERT_EQ(found->size(), 70u);
  EXPECT_EQ(found->back().pid, 169u);
}

TEST_F(NvmlProcessesTest, ALibraryWithoutTheListOrNoLibraryAtAllSaysWhy) {
  std::string error;
  EXPECT_FALSE(nvml_compute_processes(bus_id, error, FAKE_NVML_LEGACY_LIBRARY));
  EXPECT_NE(error.find("lacks nvmlDeviceGetComputeRunningProcesses_v3"), std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(nvml_compute_processes(bus_id, error, "/nonexistent/libnvidia-ml.so.1"));
  EXPECT_NE(error.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << error;
}

}  // namespace
}  // namespace lb::cuda

#endif
