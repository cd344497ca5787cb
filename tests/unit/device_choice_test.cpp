// Which devices a run measures on, decided from each registered backend's own usability check
// (BackendDescriptor::usability), never from a backend's name. The backends and their verdicts
// here are TEST DATA: made-up descriptors standing in for libraries this machine lacks.
#include "bench/device_choice.hpp"

#include <gtest/gtest.h>

#include "harness/util/input_error.hpp"
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/loader/cuda_loader.hpp"
#endif

namespace lb::cli {
namespace {

BackendDescriptor test_backend(std::string name, std::string_view kind) {
  BackendDescriptor d;
  d.name = std::move(name);
  d.device_kind = std::string(kind);
  return d;
}

const BackendDescriptor cpu_library = test_backend("test_cpu_library", cpu_kind);
const BackendDescriptor gpu_library_a = test_backend("test_gpu_library_a", gpu_kind);
const BackendDescriptor gpu_library_b = test_backend("test_gpu_library_b", gpu_kind);
const BackendDescriptor accelerator_library = test_backend("test_library", "test_accelerator");

doctor::Diagnosis doctor_says(bool usable, std::string verdict) {
  doctor::Diagnosis d;
  d.gpu_usable = usable;
  d.verdict = std::move(verdict);
  d.fixes = {"the doctor's fix"};
  return d;
}

const doctor::Diagnosis doctor_ready = doctor_says(true, "GPU ready: from the doctor");

DeviceVerdict verdict_of(std::string kind, std::vector<int> usable, std::string verdict) {
  return {std::move(kind), std::move(usable), std::move(verdict), {}};
}

DeviceChoice named(std::string kind, int index) {
  DeviceChoice choice;
  choice.named = DeviceId{std::move(kind), index};
  choice.required = true;
  return choice;
}

TEST(DeviceChoice, OneGpuBackendsVerdictIsTheRunsVerdict) {
  const DeviceVerdict v =
      device_verdict(gpu_kind, {&cpu_library, &gpu_library_a},
                     {{"test_cpu_library", {{0}, "CPU ready: test", {}}},
                      {"test_gpu_library_a", {{1, 0}, "GPU ready: A's", {}}}},
                     doctor_says(false, "No usable GPU: the doctor's NVIDIA check"));
  EXPECT_EQ(v.usable, (std::vector<int>{0, 1})) << "the GPU backend decides, not the doctor";
  EXPECT_EQ(v.verdict, "GPU ready: A's");
  EXPECT_TRUE(v.fixes.empty());
}

TEST(DeviceChoice, AGpuIsUsableWhenAnyGpuBackendCanRunOnIt) {
  const DeviceVerdict v = device_verdict(
      gpu_kind, {&gpu_library_a, &gpu_library_b},
      {{"test_gpu_library_a", {{}, "No usable GPU: A's library missing", {"install A"}}},
       {"test_gpu_library_b", {{2}, "GPU ready: B's", {}}}},
      doctor_ready);
  EXPECT_EQ(v.usable, (std::vector<int>{2}));
  EXPECT_EQ(v.verdict,
            "test_gpu_library_a: No usable GPU: A's library missing; test_gpu_library_b: GPU "
            "ready: B's");
  EXPECT_EQ(v.fixes, (std::vector<std::string>{"install A"}));
}

TEST(DeviceChoice, WithoutAGpuBackendNoGpuIsUsable) {
  const DeviceVerdict cpu_build =
      device_verdict(gpu_kind, {&cpu_library}, {{"test_cpu_library", {{0}, "CPU ready: test", {}}}},
                     doctor_says(false, "No usable GPU: built without a GPU library"));
  EXPECT_TRUE(cpu_build.usable.empty());
  EXPECT_EQ(cpu_build.verdict, "No usable GPU: built without a GPU library");
  EXPECT_EQ(cpu_build.fixes, (std::vector<std::string>{"the doctor's fix"}));
  const DeviceVerdict doctor_sees_one = device_verdict(gpu_kind, {&cpu_library}, {}, doctor_ready);
  EXPECT_TRUE(doctor_sees_one.usable.empty());
  EXPECT_EQ(doctor_sees_one.verdict, "No usable GPU: this build has no GPU backend");
}

// A kind of its own is judged by its backends alone: the doctor's NVIDIA verdict is the GPUs'.
TEST(DeviceChoice, AKindOfItsOwnIsJudgedByItsBackends) {
  const std::map<std::string, DeviceUsability> usability = {
      {"test_gpu_library_a", {{}, "No usable GPU: A's library missing", {"install A"}}},
      {"test_library", {{0, 1}, "test_accelerator ready: two", {}}}};
  const std::vector<const BackendDescriptor*> registered = {&gpu_library_a, &accelerator_library};
  const DeviceVerdict own = device_verdict("test_accelerator", registered, usability,
                                           doctor_says(false, "No usable GPU: the doctor's"));
  EXPECT_EQ(own.usable, (std::vector<int>{0, 1}));
  EXPECT_EQ(own.verdict, "test_accelerator ready: two");
  const DeviceVerdict gpu = device_verdict(gpu_kind, registered, usability, doctor_ready);
  EXPECT_TRUE(gpu.usable.empty()) << "the test backend's devices are not GPUs";
  const DeviceVerdict none = device_verdict("test_accelerator", {&gpu_library_a}, {}, doctor_ready);
  EXPECT_EQ(none.verdict, "No usable test_accelerator: this build has no test_accelerator backend");
}

TEST(DeviceChoice, DevicesToRunAreThoseAskedAmongTheUsable) {
  const std::vector<DeviceVerdict> v = {verdict_of("gpu", {0, 1}, "GPU ready: test"),
                                        verdict_of("test_accelerator", {0}, "ready: test")};
  bool unusable = false;
  const std::vector<DeviceId> every = accelerators_to_run(parse_device("auto"), v, true, unusable);
  ASSERT_EQ(every.size(), 3u);
  EXPECT_EQ(to_string(every[0]) + " " + to_string(every[1]) + " " + to_string(every[2]),
            "gpu:0 gpu:1 test_accelerator:0");
  const auto one = accelerators_to_run(parse_device("gpu:1"), v, true, unusable);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(to_string(one[0]), "gpu:1");
  const auto own = accelerators_to_run(named("test_accelerator", 0), v, true, unusable);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(to_string(own[0]), "test_accelerator:0");
  EXPECT_TRUE(accelerators_to_run(parse_device("cpu"), v, true, unusable).empty());
  EXPECT_FALSE(unusable);
  try {
    accelerators_to_run(parse_device("gpu:2"), v, true, unusable);
    FAIL() << "gpu:2 is not usable";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--device: gpu:2 is not a usable GPU here (GPU ready: test)");
  }
  try {
    accelerators_to_run(named("test_accelerator", 1), v, true, unusable);
    FAIL() << "test_accelerator:1 is not usable";
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "--device: test_accelerator:1 is not a usable test_accelerator here (ready: test)");
  }
}

TEST(DeviceChoice, NoUsableDeviceIsAnErrorOnlyWhenOneWasNamed) {
  const std::vector<DeviceVerdict> none = {verdict_of("gpu", {}, "No usable GPU: test")};
  bool unusable = false;
  EXPECT_TRUE(accelerators_to_run(parse_device("auto"), none, true, unusable).empty());
  EXPECT_FALSE(unusable) << "auto falls back to the CPU";
  EXPECT_TRUE(accelerators_to_run(parse_device("gpu"), none, true, unusable).empty());
  EXPECT_TRUE(unusable) << "a GPU asked for by name";
  // One kind's absence leaves the other kinds' devices in.
  const std::vector<DeviceVerdict> mixed = {none[0], verdict_of("test_accelerator", {0}, "ok")};
  unusable = false;
  EXPECT_EQ(accelerators_to_run(parse_device("auto"), mixed, true, unusable).size(), 1u);
  EXPECT_FALSE(unusable);
  EXPECT_EQ(accelerators_to_run(named("test_accelerator", 0), mixed, true, unusable).size(), 1u);
  EXPECT_FALSE(unusable) << "the GPU was not asked for";
}

TEST(DeviceChoice, DeviceIsOneOfTheKindsThisBuildKnows) {
  EXPECT_EQ(device_kinds().at(0), "cpu");
  EXPECT_EQ(device_kinds().at(1), "gpu") << "named by every build, so the doctor can explain";
  try {
    parse_device("tpu:0");
    FAIL() << "no backend of this build offers a tpu";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--device: 'tpu:0' is not cpu, gpu, gpu:N, ", 0), 0u)
        << e.what();
  }
}

TEST(DeviceChoice, AssumedDevicesAreTheOnesNamed) {
  EXPECT_EQ(assumed_usable(parse_device("gpu:3")).at(0).usable, (std::vector<int>{3}));
  EXPECT_EQ(assumed_usable(parse_device("all")).at(0).usable, (std::vector<int>{0}));
  EXPECT_EQ(assumed_usable(named("test_accelerator", 2)).at(0).kind, "test_accelerator");
}

#if LAYERBENCH_HAVE_CUDA
// The CUDA backend's check is the doctor's NVIDIA-stack diagnosis; its snapshot is TEST DATA.
TEST(DeviceChoice, CudaBackendUsabilityIsTheDoctorsNvidiaCheck) {
  doctor::Snapshot s;
  s.os = "linux";
  s.nvidia.cuda_build = true;
  s.nvidia.runtime_version = 13000;
  s.nvidia.driver.library = "libcuda.so.1";
  const DeviceUsability u = cuda::descriptor().usability(s, doctor::load_facts());
  EXPECT_TRUE(u.usable.empty());
  EXPECT_EQ(u.verdict.rfind("No usable GPU: NVIDIA driver not found", 0), 0u) << u.verdict;
  EXPECT_FALSE(u.fixes.empty());
}
#endif

}  // namespace
}  // namespace lb::cli
