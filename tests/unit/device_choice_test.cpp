// Which GPUs a run measures on, decided from each registered GPU backend's own usability check
// (BackendDescriptor::usability), never from a backend's name. The backends and their verdicts
// here are TEST DATA: made-up descriptors standing in for GPU libraries this machine lacks.
#include "bench/device_choice.hpp"

#include <gtest/gtest.h>

#include "harness/input_error.hpp"
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/loader/cuda_loader.hpp"
#endif

namespace lb::cli {
namespace {

BackendDescriptor test_backend(std::string name, DeviceKind kind) {
  BackendDescriptor d;
  d.name = std::move(name);
  d.device_kind = kind;
  return d;
}

const BackendDescriptor cpu_library = test_backend("test_cpu_library", DeviceKind::cpu);
const BackendDescriptor gpu_library_a = test_backend("test_gpu_library_a", DeviceKind::gpu);
const BackendDescriptor gpu_library_b = test_backend("test_gpu_library_b", DeviceKind::gpu);

doctor::Diagnosis doctor_says(bool usable, std::string verdict) {
  doctor::Diagnosis d;
  d.gpu_usable = usable;
  d.verdict = std::move(verdict);
  d.fixes = {"the doctor's fix"};
  return d;
}

const doctor::Diagnosis doctor_ready = doctor_says(true, "GPU ready: from the doctor");

TEST(DeviceChoice, OneGpuBackendsVerdictIsTheRunsVerdict) {
  const GpuVerdict v = gpu_verdict({&cpu_library, &gpu_library_a},
                                   {{"test_cpu_library", {{0}, "CPU ready: test", {}}},
                                    {"test_gpu_library_a", {{1, 0}, "GPU ready: A's", {}}}},
                                   doctor_says(false, "No usable GPU: the doctor's NVIDIA check"));
  EXPECT_EQ(v.usable, (std::vector<int>{0, 1})) << "the GPU backend decides, not the doctor";
  EXPECT_EQ(v.verdict, "GPU ready: A's");
  EXPECT_TRUE(v.fixes.empty());
}

TEST(DeviceChoice, AGpuIsUsableWhenAnyGpuBackendCanRunOnIt) {
  const GpuVerdict v = gpu_verdict(
      {&gpu_library_a, &gpu_library_b},
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
  const GpuVerdict cpu_build =
      gpu_verdict({&cpu_library}, {{"test_cpu_library", {{0}, "CPU ready: test", {}}}},
                  doctor_says(false, "No usable GPU: built without a GPU library"));
  EXPECT_TRUE(cpu_build.usable.empty());
  EXPECT_EQ(cpu_build.verdict, "No usable GPU: built without a GPU library");
  EXPECT_EQ(cpu_build.fixes, (std::vector<std::string>{"the doctor's fix"}));
  const GpuVerdict doctor_sees_one = gpu_verdict({&cpu_library}, {}, doctor_ready);
  EXPECT_TRUE(doctor_sees_one.usable.empty());
  EXPECT_EQ(doctor_sees_one.verdict, "No usable GPU: this build has no GPU backend");
}

TEST(DeviceChoice, GpusToRunAreThoseAskedAmongTheUsable) {
  GpuVerdict v;
  v.usable = {0, 1};
  v.verdict = "GPU ready: test";
  bool unusable = false;
  EXPECT_EQ(gpus_to_run(parse_device("auto"), v, true, unusable), (std::vector<int>{0, 1}));
  EXPECT_EQ(gpus_to_run(parse_device("gpu:1"), v, true, unusable), (std::vector<int>{1}));
  EXPECT_TRUE(gpus_to_run(parse_device("cpu"), v, true, unusable).empty());
  EXPECT_FALSE(unusable);
  try {
    gpus_to_run(parse_device("gpu:2"), v, true, unusable);
    FAIL() << "gpu:2 is not usable";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--device: gpu:2 is not a usable GPU here (GPU ready: test)");
  }
}

TEST(DeviceChoice, NoUsableGpuIsAnErrorOnlyWhenOneWasNamed) {
  GpuVerdict none;
  none.verdict = "No usable GPU: test";
  bool unusable = false;
  EXPECT_TRUE(gpus_to_run(parse_device("auto"), none, true, unusable).empty());
  EXPECT_FALSE(unusable) << "auto falls back to the CPU";
  EXPECT_TRUE(gpus_to_run(parse_device("gpu"), none, true, unusable).empty());
  EXPECT_TRUE(unusable) << "a GPU asked for by name";
}

TEST(DeviceChoice, AssumedGpusAreTheOnesNamed) {
  EXPECT_EQ(assumed_usable_gpus(parse_device("gpu:3")).usable, (std::vector<int>{3}));
  EXPECT_EQ(assumed_usable_gpus(parse_device("all")).usable, (std::vector<int>{0}));
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
