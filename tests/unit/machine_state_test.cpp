#include "harness/machine/machine_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace lb {
namespace {

TEST(CpuBusy, OtherTasksBeyondTheFreeProcessorsMakeItBusy) {
  EXPECT_FALSE(cpu_busy({0, 2, 2}));
  EXPECT_TRUE(cpu_busy({1, 2, 2}));   // a hog on a 2-core machine at 2 threads
  EXPECT_FALSE(cpu_busy({1, 2, 1}));  // ... leaves 1 thread its own core
  EXPECT_TRUE(cpu_busy({2, 2, 1}));
  EXPECT_TRUE(cpu_busy({1, 2, 4}));  // more threads than processors: any other task shares
}

TEST(GpuProcesses, OursIsNotAnOther) {
  const std::vector<GpuProcess> on_device = {{100, 1u << 30}, {200, std::nullopt}};
  const auto others = other_gpu_processes(on_device, 100);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].pid, 200u);
  EXPECT_TRUE(other_gpu_processes({{100, 5}}, 100).empty());
}

TEST(BusyWarning, QuietRunHasNone) {
  MachineReading quiet;
  quiet.other_runnable = 0;
  quiet.gpu_others = {{"gpu:0", {}}};
  EXPECT_FALSE(busy_warning(quiet, quiet, 2, 2, 0).has_value());
}

TEST(BusyWarning, NamesWhatWasBusyAndWhatToDo) {
  MachineReading start, end;
  start.other_runnable = 1;
  end.other_runnable = 0;
  end.gpu_others = {{"gpu:0", {{7, 2ull << 30}}}};
  const auto text = busy_warning(start, end, 2, 2, 3);
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("1 other runnable task(s) at the start"), std::string::npos) << *text;
  EXPECT_NE(text->find("1 other compute process(es) on gpu:0 holding 2 GiB at the end"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("3 CPU point(s)"), std::string::npos) << *text;
  EXPECT_NE(text->find("fewer --threads"), std::string::npos) << *text;
  EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), 1);  // one warning, one line
}

TEST(BusyWarning, ContendedPointsAloneWarn) {
  MachineReading quiet;
  quiet.other_runnable = 0;
  EXPECT_TRUE(busy_warning(std::nullopt, quiet, 2, 1, 1).has_value());
}

TEST(MachineReadingJson, UnknownsAreNullAndGpuErrorsRecorded) {
  MachineReading r;
  r.gpu_errors = {{"gpu:0", "libnvidia-ml.so.1: not found"}};
  const auto j = to_json(r, 2, 2);
  EXPECT_TRUE(j.at("other_runnable").is_null());
  EXPECT_TRUE(j.at("cpu_busy").is_null());
  r.other_runnable = 1;
  EXPECT_EQ(to_json(r, 2, 2).at("cpu_busy"), true);
  EXPECT_EQ(to_json(r, 2, 1).at("cpu_busy"), false);
  EXPECT_EQ(j.at("gpus").at("gpu:0").at("error"), "libnvidia-ml.so.1: not found");
}

// Each GPU's other compute processes as NVML listed them: pid and memory, null where NVML had
// no figure; a GPU with none records an empty list (asked, nobody else there).
TEST(MachineReadingJson, OtherGpuProcessesAreRecordedPerGpu) {
  MachineReading r;
  r.gpu_others = {{"gpu:0", {{7, 2ull << 30}, {9, std::nullopt}}}, {"gpu:1", {}}};
  const auto gpus = to_json(r, 2, 2).at("gpus");
  const auto& others = gpus.at("gpu:0").at("other_processes");
  ASSERT_EQ(others.size(), 2u);
  EXPECT_EQ(others[0].at("pid"), 7);
  EXPECT_EQ(others[0].at("used_bytes"), 2ull << 30);
  EXPECT_EQ(others[1].at("pid"), 9);
  EXPECT_TRUE(others[1].at("used_bytes").is_null());
  EXPECT_TRUE(gpus.at("gpu:1").at("other_processes").empty());
}

}  // namespace
}  // namespace lb
