// The doctor's verdict on Python frameworks, from fabricated probe reports and machines.
//
// Every framework, driver, library and DLL below is TEST DATA standing in for what the probe
// script (bench/probe/framework_probe.py) reports of a real installation; the versions follow
// the named releases.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "harness/doctor/facts.hpp"
#include "harness/doctor/frameworks.hpp"

namespace lb::doctor {
namespace {

const Facts& facts() {
  static const Facts f = load_facts();
  return f;
}

FrameworkLibrary found(const std::string& family, const std::string& soname,
                       const std::string& version) {
  return {family, soname, "/env/nvidia/" + family + "/lib/" + soname, "pip " + family, version, {}};
}

// PyTorch 2.9.0 built for CUDA 12.8 with its pip libraries in place.
FrameworkProbe torch_cu128() {
  FrameworkProbe f;
  f.name = "torch";
  f.display = "PyTorch";
  f.status = "ok";
  f.package = "torch";
  f.version = "2.9.0+cu128";
  f.cuda_build = true;
  f.cuda_version = "12.8";
  f.cudnn_version = "9.10.2";
  f.gpus_seen = 1;
  f.libraries = {found("cudart", "libcudart.so.12", "12.8.90"),
                 found("cudnn", "libcudnn.so.9", "9.10.2")};
  return f;
}

PythonProbe probe_of(FrameworkProbe f, const std::string& platform = "linux") {
  PythonProbe p;
  p.python = "/env/bin/python";
  p.platform = platform;
  p.frameworks = {std::move(f)};
  return p;
}

Snapshot with_driver(int max_cuda) {
  Snapshot s;
  s.os = "linux";
  s.nvidia.driver.loaded = true;
  s.nvidia.driver.library = "libcuda.so.1";
  s.nvidia.driver.version = "570.86.10";
  s.nvidia.driver.max_cuda_version = max_cuda;
  return s;
}

FrameworkVerdict judge_one(const PythonProbe& p, const Snapshot& s) {
  const auto verdicts = judge_frameworks(p, s, facts());
  EXPECT_EQ(verdicts.size(), 1u);
  return verdicts.at(0);
}

TEST(FrameworkVerdict, ReadyWhenLibrariesDriverAndDevicesAgree) {
  const auto v = judge_one(probe_of(torch_cu128()), with_driver(12080));
  EXPECT_TRUE(v.gpu_usable);
  EXPECT_EQ(v.verdict, "PyTorch 2.9.0+cu128 (CUDA 12.8 build) sees 1 GPU");
  EXPECT_TRUE(v.fixes.empty());
}

TEST(FrameworkVerdict, DriverOfAnOlderCudaMajorBlocks) {
  const auto v = judge_one(probe_of(torch_cu128()), with_driver(11080));
  EXPECT_FALSE(v.gpu_usable);
  EXPECT_EQ(v.verdict,
            "PyTorch 2.9.0+cu128 (CUDA 12.8 build) will run on the CPU: the NVIDIA driver "
            "supports CUDA 11.8 but this PyTorch was built for CUDA 12.8");
  ASSERT_EQ(v.fixes.size(), 2u);
  EXPECT_EQ(v.fixes[0].rfind("Update the NVIDIA driver: CUDA 12.8 needs driver >= 525", 0), 0u)
      << v.fixes[0];
  EXPECT_EQ(v.fixes[1], "Or install a PyTorch build for CUDA 11.x.");
}

TEST(FrameworkVerdict, DriverOfAnOlderMinorIsAdviceNotABlock) {
  const auto v = judge_one(probe_of(torch_cu128()), with_driver(12020));
  EXPECT_TRUE(v.gpu_usable);
  ASSERT_FALSE(v.advice.empty());
  EXPECT_NE(v.advice.back().find("supports CUDA 12.2, older than the CUDA 12.8"),
            std::string::npos);
}

TEST(FrameworkVerdict, MissingDriverNamesTheBuildsCuda) {
  Snapshot s;
  s.os = "linux";
  s.nvidia.driver.library = "libcuda.so.1";
  const auto v = judge_one(probe_of(torch_cu128()), s);
  EXPECT_FALSE(v.gpu_usable);
  EXPECT_EQ(v.verdict,
            "PyTorch 2.9.0+cu128 (CUDA 12.8 build) will run on the CPU: NVIDIA driver not found "
            "(libcuda.so.1 cannot be loaded)");
}

TEST(FrameworkVerdict, HiddenDevicesAndNoGpuSeen) {
  auto p = probe_of(torch_cu128());
  p.env["CUDA_VISIBLE_DEVICES"] = "-1";
  p.frameworks[0].gpus_seen = 0;
  const auto v = judge_one(p, with_driver(12080));
  EXPECT_EQ(v.verdict,
            "PyTorch 2.9.0+cu128 (CUDA 12.8 build) will run on the CPU: "
            "CUDA_VISIBLE_DEVICES=\"-1\": every GPU is hidden");
  EXPECT_EQ(v.fixes, std::vector<std::string>{
                         "`unset CUDA_VISIBLE_DEVICES`, or list the GPUs to use, e.g. 0"});
}

TEST(FrameworkVerdict, CpuOnlyTorchBuildPointsAtTheCudaWheel) {
  FrameworkProbe f = torch_cu128();
  f.version = "2.9.0+cpu";
  f.cuda_build = false;
  f.libraries.clear();
  const auto v = judge_one(probe_of(f), with_driver(12080));
  EXPECT_EQ(v.verdict, "PyTorch 2.9.0+cpu is a CPU-only build: it never uses a GPU");
  ASSERT_EQ(v.fixes.size(), 1u);
  EXPECT_NE(v.fixes[0].find("`/env/bin/python -m pip install --force-reinstall 'torch==2.9.0'`"),
            std::string::npos);
}

TEST(FrameworkVerdict, UninstalledFrameworksGetNoVerdict) {
  FrameworkProbe f = torch_cu128();
  f.status = "not_installed";
  EXPECT_TRUE(judge_frameworks(probe_of(f), with_driver(12080), facts()).empty());
}

// Native Windows TensorFlow 2.10 loads cudart64_110.dll and cudnn64_8.dll by name along the DLL
// search order, as the seed article's user met it.
FrameworkProbe tensorflow_2_10_windows() {
  FrameworkProbe f;
  f.name = "tensorflow";
  f.display = "TensorFlow";
  f.status = "ok";
  f.package = "tensorflow";
  f.version = "2.10.1";
  f.cuda_build = true;
  f.cuda_version = "11.2";  // its tested build (facts); the probe passes what the build reports
  f.cudnn_version = "8";
  return f;
}

TEST(FrameworkVerdict, WindowsTensorflow210NamesTheDllsItCannotFind) {
  Snapshot s = with_driver(12020);
  s.os = "windows";
  s.nvidia.dll_search = true;
  s.nvidia.dlls = {{"cudart64_12.dll", "cudart", "C:\\CUDA\\v12.2\\bin", "PATH", "12.2", ""}};
  const auto v = judge_one(probe_of(tensorflow_2_10_windows(), "win32"), s);
  EXPECT_FALSE(v.gpu_usable);
  EXPECT_EQ(v.verdict,
            "TensorFlow 2.10.1 (CUDA 11.2 build) will run on the CPU: it cannot load "
            "cudart64_110.dll, cublas64_11.dll, cublasLt64_11.dll, cudnn64_8.dll: not found along "
            "the DLL search order");
  ASSERT_FALSE(v.fixes.empty());
  EXPECT_NE(v.fixes[0].find("cuDNN 8.1 for CUDA 11.x"), std::string::npos) << v.fixes[0];
}

TEST(FrameworkVerdict, WindowsTensorflow210ReadyWithItsDlls) {
  Snapshot s = with_driver(12020);
  s.os = "windows";
  s.nvidia.dll_search = true;
  s.nvidia.dlls = {{"cudart64_110.dll", "cudart", "C:\\CUDA\\v11.2\\bin", "PATH", "11.2", ""},
                   {"cublas64_11.dll", "cublas", "C:\\CUDA\\v11.2\\bin", "PATH", "", ""},
                   {"cublasLt64_11.dll", "cublasLt", "C:\\CUDA\\v11.2\\bin", "PATH", "", ""},
                   {"CUDNN64_8.DLL", "cudnn", "C:\\cudnn\\bin", "PATH", "8.1.0", ""}};
  auto f = tensorflow_2_10_windows();
  f.gpus_seen = 1;
  const auto v = judge_one(probe_of(f, "win32"), s);
  EXPECT_TRUE(v.gpu_usable) << v.verdict;
}

TEST(FrameworkProbeJson, MissingFieldIsNamed) {
  const auto j = nlohmann::json::parse(
      R"({"python": "/p", "python_version": "3.11.7", "platform": "linux",
          "frameworks": [{"name": "torch", "display": "PyTorch"}],
          "nvidia_packages": {}, "env": {}})");
  try {
    parse_python_probe(j);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "framework probe: frameworks[].torch.status is missing or of the wrong type");
  }
}

}  // namespace
}  // namespace lb::doctor
