// The doctor's diagnosis on fabricated machines, the facts files, version decoding, the
// TensorFlow check and the real probe on whatever machine runs the tests.
//
// Every GPU, driver and library in the fabricated snapshots below is TEST DATA standing in for
// a machine this test does not have; names and capabilities follow the reference facts table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/backend_registry.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/loader_message.hpp"
#include "harness/doctor/probe.hpp"
#include "harness/doctor/report.hpp"
#include "harness/doctor/versions.hpp"
#include "harness/util/data_paths.hpp"

namespace lb::doctor {
namespace {

const Facts& facts() {
  static const Facts f = load_facts();
  return f;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (contains(l, needle)) return true;
  return false;
}

const Finding* find(const Diagnosis& d, Severity severity, const std::string& needle) {
  for (const auto& f : d.findings)
    if (f.severity == severity && contains(f.message, needle)) return &f;
  return nullptr;
}

int errors(const Diagnosis& d) {
  int n = 0;
  for (const auto& f : d.findings) n += f.severity == Severity::error;
  return n;
}

// Test data: a working Linux machine with one H100 SXM (CC 9.0, 132 SMs per the reference
// table), CUDA 12.4 runtime, driver 550.54.15, cuDNN 8.9.7 and cuBLAS 12.4.5.
GpuInfo h100(int index = 0) {
  GpuInfo g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3 (test data)";
  g.cc_major = 9, g.cc_minor = 0, g.sm_count = 132;
  g.memory_total = 80ull << 30, g.memory_free = 79ull << 30;
  g.build_has_code = true;
  return g;
}

Snapshot healthy() {
  Snapshot s;
  s.os = "linux";
  s.cpu.model = "test CPU";
  s.cpu.cores = 8, s.cpu.threads = 16;
  s.nvidia.cuda_build = true;
  s.nvidia.build_architectures = "75;80;86;89;90";
  s.nvidia.runtime_version = 12040;
  s.nvidia.driver = {true, "libcuda.so.1", "", "550.54.15", 12040};
  s.nvidia.device_count = 1;
  s.nvidia.gpus = {h100()};
  s.nvidia.cudnn = {true, 8907, 8907, 12020, "", "/usr/lib/libcudnn.so.8"};
  s.nvidia.cublas = {true, 120405, 120405, 12040, "", "/usr/lib/libcublasLt.so.12"};
  s.nvidia.cuda_plugin = {true, "/opt/lb/lib/layerbench/liblayerbench_cuda.so", ""};
  s.env = {{"CUDA_VISIBLE_DEVICES", std::nullopt},
           {"NVIDIA_TF32_OVERRIDE", std::nullopt},
           {"CUBLAS_WORKSPACE_CONFIG", std::nullopt},
           {"LD_LIBRARY_PATH", std::nullopt}};
  return s;
}

Snapshot no_driver(Snapshot s) {
  s.nvidia.driver = {false, "libcuda.so.1", "libcuda.so.1: cannot open shared object file", "", 0};
  s.nvidia.device_count = 0;
  s.nvidia.gpus.clear();
  s.nvidia.device_error =
      "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";
  return s;
}

// --- facts and versions ---

TEST(DoctorFacts, ShippedFilesLoadWithSources) {
  EXPECT_EQ(facts().sources.size(), 4u);
  for (const auto& source : facts().sources)
    EXPECT_TRUE(contains(source, "hardware-and-versions.md") ||
                contains(source, "tensorflow/tensorflow issues"))
        << source;
  ASSERT_NE(minimum_driver(facts(), 12040), nullptr);
  EXPECT_EQ(minimum_driver(facts(), 12040)->linux_driver, "525.60.13");
  EXPECT_EQ(minimum_driver(facts(), 12040)->windows_driver, "527.41");
  EXPECT_EQ(minimum_driver(facts(), 13000)->linux_driver, "580");
  EXPECT_EQ(minimum_driver(facts(), 13000)->windows_driver, "");  // not confirmed in the source
  EXPECT_EQ(minimum_driver(facts(), 10020)->linux_driver, "440.33");
  EXPECT_EQ(minimum_driver(facts(), 10010), nullptr);  // only 10.2 is listed for CUDA 10
  EXPECT_EQ(facts().tensorflow_windows_native_last, "2.10");
}

TEST(DoctorFacts, TensorCorePrecisionsByComputeCapability) {
  using V = std::vector<std::string>;
  EXPECT_EQ(tensor_core_precisions(facts(), 6, 1), V{});
  EXPECT_EQ(tensor_core_precisions(facts(), 7, 0), V{"FP16"});
  EXPECT_EQ(tensor_core_precisions(facts(), 7, 5), V{"FP16"});
  EXPECT_EQ(tensor_core_precisions(facts(), 8, 6), (V{"FP16", "TF32", "BF16"}));
  EXPECT_EQ(tensor_core_precisions(facts(), 8, 9), (V{"FP16", "TF32", "BF16", "FP8"}));
  EXPECT_EQ(tensor_core_precisions(facts(), 9, 0), (V{"FP16", "TF32", "BF16", "FP8"}));
}

TEST(DoctorFacts, TensorflowRangesAndPatchReleases) {
  ASSERT_NE(tensorflow_build(facts(), "2.15"), nullptr);
  EXPECT_EQ(tensorflow_build(facts(), "2.15.1")->cuda_version, 12020);
  EXPECT_EQ(tensorflow_build(facts(), "2.7")->cudnn_minor, 1);  // inside the 2.5 - 2.11 range
  EXPECT_EQ(tensorflow_build(facts(), "2.11")->cuda_version, 11020);
  EXPECT_EQ(tensorflow_build(facts(), "2.12")->cuda_version, 11080);
  EXPECT_EQ(tensorflow_build(facts(), "3.0"), nullptr);
}

TEST(DoctorFacts, BadFileNamesFileAndField) {
  const auto dir = std::filesystem::temp_directory_path() / "layerbench_doctor_bad_facts";
  std::filesystem::create_directories(dir);
  for (const char* name : {"tensor_cores.json", "tensorflow_builds.json"})
    std::filesystem::copy_file(data_dir() / "facts" / name, dir / name,
                               std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "cuda_drivers.json")
      << R"({"source": "test", "minimum_driver": [{"cuda": "12.x", "linux": 525, "windows": null}]})";
  try {
    load_facts(dir);
    FAIL() << "a number where a driver version string belongs was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cuda_drivers.json")) << e.what();
    EXPECT_TRUE(contains(e.what(), "minimum_driver[0].linux")) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(DoctorVersions, DecodeAndCompare) {
  EXPECT_EQ(cuda_version_text(12040), "12.4");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(parse_cuda_version("11.8"), 11080);
  EXPECT_THROW(parse_cuda_version("11"), std::invalid_argument);
  EXPECT_EQ(text(decode_cudnn_version(91900)), "9.19.0");  // cuDNN 9: 10000 x major
  EXPECT_EQ(text(decode_cudnn_version(8907)), "8.9.7");    // cuDNN 8: 1000 x major
  EXPECT_EQ(text(decode_cublas_version(130100)), "13.1.0");
  EXPECT_EQ(text(decode_cublas_version(11201)), "11.2.1");
  EXPECT_TRUE(version_at_least("580.65.06", "580"));
  EXPECT_TRUE(version_at_least("525.60.13", "525.60.13"));
  EXPECT_FALSE(version_at_least("472.12", "527.41"));
  EXPECT_FALSE(version_at_least("525.60.11", "525.60.13"));
  EXPECT_THROW(dotted("5x.1"), std::invalid_argument);
  EXPECT_EQ(
      driver_version_from_module_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
                                      "Tue Mar  5 22:23:56 UTC 2024\n"
                                      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
      "550.54.15");
  EXPECT_EQ(driver_version_from_module_text("garbage\n1.2.3"), "");
}

TEST(DoctorVersions, MalformedAndHugeTextIsRefusedNotCrashedOn) {
  EXPECT_THROW(dotted("2.15."), std::invalid_argument);  // read as 2.15 before
  EXPECT_THROW(dotted(".2"), std::invalid_argument);
  EXPECT_THROW(dotted("1234567890.1"), std::invalid_argument);  // 10 digits: beyond an int
  // 999999999 x 1000 overflowed an int; minors above 99 collide with the next major.
  EXPECT_THROW(parse_cuda_version("999999999.1"), std::invalid_argument);
  EXPECT_THROW(parse_cuda_version("12.100"), std::invalid_argument);
  EXPECT_EQ(parse_cuda_version("2147482.99"), 2147482990);
  // A million-character first line overflowed std::regex's recursion (segmentation fault).
  const std::string long_line(1000000, '7');
  EXPECT_EQ(driver_version_from_module_text(long_line + " 550.54.15"), "550.54.15");
  EXPECT_EQ(driver_version_from_module_text("Module 1234567890.54 x"), "");  // not comparable
}

// --- the diagnosis ---

TEST(DoctorDiagnosis, HealthyMachineIsReady) {
  const Diagnosis d = diagnose(healthy(), facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_EQ(errors(d), 0);
  EXPECT_TRUE(d.reason.empty());
  EXPECT_EQ(d.verdict.rfind("GPU ready: GPU 0 NVIDIA H100", 0), 0u) << d.verdict;
  EXPECT_TRUE(contains(d.verdict, "CUDA runtime 12.4")) << d.verdict;
  EXPECT_EQ(d.usable_gpus, std::vector<int>{0});
  EXPECT_EQ(d.tensor_cores.at(0), (std::vector<std::string>{"FP16", "TF32", "BF16", "FP8"}));
  EXPECT_EQ(d.driver_needed, "driver >= 525.60.13, the Linux minimum for CUDA 12.x");
}

TEST(DoctorDiagnosis, NoDriverOnLinux) {
  const Diagnosis d = diagnose(no_driver(healthy()), facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_EQ(d.reason.rfind("NVIDIA driver not found", 0), 0u) << d.reason;
  EXPECT_EQ(d.verdict, "No usable GPU: " + d.reason);
  EXPECT_TRUE(any_contains(d.fixes, "nvidia-smi"));
  EXPECT_TRUE(any_contains(d.fixes, "driver >= 525.60.13"))
      << "the minimum for the CUDA 12 runtime";
  // No driver explains the missing devices: no second "no GPU" error piled on top.
  EXPECT_EQ(errors(d), 1);
}

TEST(DoctorDiagnosis, NoDriverOnWindowsNamesTheDlls) {
  Snapshot s = no_driver(healthy());
  s.os = "windows";
  s.nvidia.driver.library = "nvcuda.dll";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_EQ(d.reason.rfind("NVIDIA driver not found", 0), 0u);
  EXPECT_TRUE(any_contains(d.fixes, "nvcuda.dll"));
  EXPECT_TRUE(any_contains(d.fixes, "cudnn64_*.dll"));
  EXPECT_TRUE(any_contains(d.fixes, "PATH"));
  EXPECT_TRUE(any_contains(d.fixes, "driver >= 527.41")) << "the Windows minimum for CUDA 12";
}

TEST(DoctorDiagnosis, DriverTooOldForRuntime) {
  Snapshot s = healthy();
  s.nvidia.driver.version = "472.12";
  s.nvidia.driver.max_cuda_version = 11040;
  s.nvidia.device_count = 0, s.nvidia.gpus.clear();
  s.nvidia.device_error =
      "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "472.12 supports CUDA up to 11.4")) << d.reason;
  EXPECT_TRUE(contains(d.reason, "12.4")) << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "driver >= 525.60.13"));
  EXPECT_TRUE(any_contains(d.fixes, "no newer than 11.4"));
  s.os = "windows";
  EXPECT_TRUE(any_contains(diagnose(s, facts()).fixes, "driver >= 527.41"));
}

TEST(DoctorDiagnosis, UnrecordedWindowsMinimumIsSaidSo) {
  Snapshot s = no_driver(healthy());
  s.os = "windows";
  s.nvidia.runtime_version = 13000;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(contains(d.driver_needed, "at least 13.0")) << d.driver_needed;
  EXPECT_TRUE(contains(d.driver_needed, "do not record the Windows minimum for CUDA 13.x"))
      << d.driver_needed;
}

TEST(DoctorDiagnosis, DriverOneMinorBehindRunsWithWarning) {
  Snapshot s = healthy();
  s.nvidia.driver.max_cuda_version = 12020;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_NE(find(d, Severity::warning, "minor-version compatibility"), nullptr);
}

TEST(DoctorDiagnosis, VisibleDevicesEmptyOrMinusOneHidesEveryGpu) {
  for (const std::string value : {"", "-1"}) {
    Snapshot s = healthy();
    s.env["CUDA_VISIBLE_DEVICES"] = value;
    s.nvidia.device_count = 0, s.nvidia.gpus.clear();
    s.nvidia.device_error = "cudaErrorNoDevice: no CUDA-capable device is detected";
    const Diagnosis d = diagnose(s, facts());
    EXPECT_FALSE(d.gpu_usable);
    EXPECT_EQ(d.reason, "CUDA_VISIBLE_DEVICES=\"" + value + "\" hides every GPU");
    EXPECT_TRUE(any_contains(d.fixes, "unset CUDA_VISIBLE_DEVICES"));
    EXPECT_EQ(errors(d), 1) << "the hidden devices are not reported twice";
  }
  Snapshot s = healthy();
  s.env["CUDA_VISIBLE_DEVICES"] = "0";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_NE(find(d, Severity::info, "CUDA_VISIBLE_DEVICES=0"), nullptr);
}

TEST(DoctorDiagnosis, DriverPresentButNoDevice) {
  Snapshot s = healthy();
  s.nvidia.device_count = 0, s.nvidia.gpus.clear();
  s.nvidia.device_error = "cudaErrorNoDevice: no CUDA-capable device is detected";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "CUDA found no GPU (cudaErrorNoDevice")) << d.reason;
}

TEST(DoctorDiagnosis, CudnnMissing) {
  Snapshot s = healthy();
  s.nvidia.cudnn.loaded = false;
  s.nvidia.cudnn.loaded_version = 0;
  s.nvidia.cudnn.error = "libcudnn.so.8: cannot open shared object file: No such file or directory";
  s.nvidia.cudnn.path = "";  // no file of its name was found
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "cuDNN could not be loaded")) << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "Install cuDNN 8 for CUDA 12.x"));
}

// Messages as glibc's dlerror() words them.
TEST(DoctorLoaderMessage, NamesTheFileAndTheUndefinedSymbol) {
  EXPECT_EQ(file_in_loader_message("/tmp/half/libcudnn.so.9: file too short"),
            "/tmp/half/libcudnn.so.9");
  EXPECT_EQ(file_in_loader_message("/a b/libcublasLt.so.13: version `libcublasLt.so.13' not found "
                                   "(required by /opt/lib/liblayerbench_cuda.so)"),
            "/a b/libcublasLt.so.13");
  EXPECT_EQ(file_in_loader_message("/x/libcudnn.so.9: invalid ELF header"), "/x/libcudnn.so.9");
  // A name not found: no file to name.
  EXPECT_EQ(file_in_loader_message(
                "libcudnn.so.9: cannot open shared object file: No such file or directory"),
            "");
  EXPECT_EQ(file_in_loader_message(""), "");
  EXPECT_EQ(file_in_loader_message("/no/separator"), "");
  EXPECT_EQ(undefined_symbol_in_loader_message(
                "/opt/lib/liblayerbench_cuda.so: undefined symbol: cudnnBackendExecute"),
            "cudnnBackendExecute");
  EXPECT_EQ(undefined_symbol_in_loader_message(
                "/opt/lib/liblayerbench_cuda.so: undefined symbol: cublasLtMatmul, version "
                "libcublasLt.so.13"),
            "cublasLtMatmul");
  EXPECT_EQ(undefined_symbol_in_loader_message("/x/libcudnn.so.9: file too short"), "");
}

// The CUDA libraries and the plugin as the loader (kernels/cuda/loader) records a broken file
// first on the library path.
Snapshot plugin_not_loaded(Snapshot s, const std::string& error) {
  s.nvidia.cuda_plugin.loaded = false;
  s.nvidia.cuda_plugin.error = error;
  s.nvidia.device_count = 0;
  s.nvidia.gpus.clear();
  s.nvidia.device_error = "not probed: the CUDA backend is not loaded";
  return s;
}

TEST(DoctorDiagnosis, BrokenCudnnFileIsNamedWithTheLoadersMessageAndTheFix) {
  Snapshot s = plugin_not_loaded(healthy(), "it needs cuDNN, which did not load");
  s.nvidia.cudnn.loaded = false;
  s.nvidia.cudnn.loaded_version = 0;
  s.nvidia.cudnn.error = "/tmp/half/libcudnn.so.8: file too short";
  s.nvidia.cudnn.path = "/tmp/half/libcudnn.so.8";
  s.env["LD_LIBRARY_PATH"] = "/tmp/half";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_EQ(d.reason, "cuDNN could not be loaded (/tmp/half/libcudnn.so.8: file too short)");
  EXPECT_TRUE(any_contains(d.fixes,
                           "Remove or fix /tmp/half/libcudnn.so.8: the loader takes the "
                           "first file of its name along LD_LIBRARY_PATH"));
  EXPECT_TRUE(any_contains(d.fixes, "Or reinstall cuDNN 8 for CUDA 12.x."));
  // One finding for it: neither the plugin nor the unprobed devices repeat it.
  for (const auto& f : d.findings)
    EXPECT_TRUE(f.subject != "cuda" && f.subject != "devices") << f.subject << ": " << f.message;
}

TEST(DoctorDiagnosis, PluginFailingOnALibrarysVersionNamesThatLibrarysFile) {
  const Snapshot s = plugin_not_loaded(
      healthy(),
      "/tmp/old/libcublasLt.so.12: version `libcublasLt.so.12' not found (required by "
      "/opt/lb/lib/layerbench/liblayerbench_cuda.so)");
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason,
                       "the CUDA backend cannot be loaded (/tmp/old/libcublasLt.so.12: "
                       "version `libcublasLt.so.12' not found"))
      << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "Remove or fix /tmp/old/libcublasLt.so.12"));
  EXPECT_TRUE(any_contains(d.fixes, "reinstall cuBLAS 12 for CUDA 12.x"));
  EXPECT_EQ(find(d, Severity::error, "CUDA found no GPU"), nullptr);
}

TEST(DoctorDiagnosis, PluginMissingASymbolNamesTheLibraryThatLacksIt) {
  Snapshot s = plugin_not_loaded(healthy(),
                                 "/opt/lb/lib/layerbench/liblayerbench_cuda.so: undefined symbol: "
                                 "cudnnBackendCreateDescriptor, version libcudnn.so.8");
  s.nvidia.cudnn.path = "/tmp/stub/libcudnn.so.8";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "/tmp/stub/libcudnn.so.8 lacks cudnnBackendCreateDescriptor"))
      << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "Remove or fix /tmp/stub/libcudnn.so.8"));
  EXPECT_TRUE(any_contains(d.fixes, "reinstall cuDNN 8 for CUDA 12.x"));
}

TEST(DoctorDiagnosis, PluginOfAnotherBuildIsRebuilt) {
  Snapshot s = healthy();
  s = plugin_not_loaded(s, s.nvidia.cuda_plugin.path +
                               " is from another build (layerbench 0.1.0 (git " +
                               "aaa)) than this binary (layerbench 0.1.0 (git bbb))");
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "is from another build")) << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "Rebuild layerbench (cmake --build) or reinstall it"));
}

TEST(DoctorDiagnosis, CudnnMajorMismatchIsAnError) {
  Snapshot s = healthy();
  s.nvidia.cudnn.compiled_version = 91900;  // built against 9.19.0 ...
  s.nvidia.cudnn.loaded_version = 8907;     // ... but 8.9.7 came first on the library path
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "built against 9.19.0 but loaded 8.9.7")) << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "LD_LIBRARY_PATH"));
}

TEST(DoctorDiagnosis, CudnnOlderMinorIsAWarning) {
  Snapshot s = healthy();
  s.nvidia.cudnn.loaded_version = 8600;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_NE(find(d, Severity::warning, "8.6.0"), nullptr);
}

TEST(DoctorDiagnosis, CublasMajorMismatchIsAnError) {
  Snapshot s = healthy();
  s.nvidia.cublas.loaded_version = 11201;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "cuBLAS: built against 12.4.5 but loaded 11.2.1")) << d.reason;
}

TEST(DoctorDiagnosis, ComputeCapabilityOlderThanTheBuild) {
  Snapshot s = healthy();
  GpuInfo v100 = h100();
  v100.name = "Tesla V100-SXM2-32GB (test data)";
  v100.cc_major = 7, v100.cc_minor = 0, v100.sm_count = 80;
  v100.build_has_code = false;  // what the arch probe reports for a build without sm_70
  s.nvidia.gpus = {v100};
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_TRUE(contains(d.reason, "no code for it (built for 75;80;86;89;90)")) << d.reason;
  EXPECT_TRUE(contains(d.reason, "7.0 is older than the oldest built, 7.5")) << d.reason;
  EXPECT_TRUE(any_contains(d.fixes, "-DCMAKE_CUDA_ARCHITECTURES=\"70;75;80;86;89;90\""));
  EXPECT_TRUE(any_contains(d.fixes, "sm_70"));
  EXPECT_EQ(d.tensor_cores.at(0), std::vector<std::string>{"FP16"});
}

TEST(DoctorDiagnosis, OneUsableGpuOfTwoIsReady) {
  Snapshot s = healthy();
  GpuInfo old = h100(1);
  old.cc_major = 7, old.cc_minor = 0, old.build_has_code = false;
  s.nvidia.gpus.push_back(old);
  s.nvidia.device_count = 2;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_EQ(d.usable_gpus, std::vector<int>{0});
  EXPECT_NE(find(d, Severity::warning, "GPU 1"), nullptr) << "the other GPU is still reported";
}

TEST(DoctorDiagnosis, SmallMemoryCardWarns) {
  Snapshot s = healthy();
  s.nvidia.gpus[0].name = "NVIDIA T400 4GB (test data)";
  s.nvidia.gpus[0].cc_major = 7, s.nvidia.gpus[0].cc_minor = 5;
  s.nvidia.gpus[0].memory_total = 4ull << 30;
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_NE(find(d, Severity::warning, "less than 6 GB"), nullptr);
  s.nvidia.gpus[0].memory_total = 6ull << 30;  // a "6 GB" card: 6 GiB is above 6e9 bytes
  EXPECT_EQ(find(diagnose(s, facts()), Severity::warning, "less than 6 GB"), nullptr);
}

TEST(DoctorDiagnosis, CpuOnlyBuild) {
  Snapshot s = healthy();
  s.nvidia.cuda_build = false;
  s.nvidia.build_architectures.clear();
  s.nvidia.runtime_version = 0;
  s.nvidia.device_count = 0, s.nvidia.gpus.clear();
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_EQ(d.reason, "this layerbench was built without CUDA");
  EXPECT_EQ(d.driver_needed, "");
  EXPECT_TRUE(any_contains(d.fixes, "-DLAYERBENCH_CUDA=ON"));
  EXPECT_EQ(errors(d), 1);
  // Without a driver as well, the driver comes first: no build of layerbench could use the GPU.
  const Diagnosis both = diagnose(no_driver(s), facts());
  EXPECT_EQ(both.reason.rfind("NVIDIA driver not found", 0), 0u);
  EXPECT_TRUE(any_contains(both.fixes, "-DLAYERBENCH_CUDA=ON"));
}

TEST(DoctorDiagnosis, Tf32OverrideWarns) {
  Snapshot s = healthy();
  s.env["NVIDIA_TF32_OVERRIDE"] = "0";
  const Diagnosis d = diagnose(s, facts());
  EXPECT_TRUE(d.gpu_usable);
  EXPECT_NE(find(d, Severity::warning, "NVIDIA_TF32_OVERRIDE=0"), nullptr);
}

// --- --for tensorflow==X.Y ---

TEST(DoctorFramework, ParseTarget) {
  EXPECT_EQ(parse_framework_target("tensorflow==2.15").version, "2.15");
  EXPECT_EQ(parse_framework_target("tensorflow==2.15.1").version, "2.15.1");
  EXPECT_THROW(parse_framework_target("tensorflow=2.15"), std::invalid_argument);
  EXPECT_THROW(parse_framework_target("tensorflow==2"), std::invalid_argument);
  EXPECT_THROW(parse_framework_target("tensorflow==two"), std::invalid_argument);
  EXPECT_THROW(parse_framework_target("tensorflow==2.15."), std::invalid_argument);
  // 100k digits crashed std::regex_match (stack overflow) before.
  EXPECT_THROW(parse_framework_target("tensorflow==" + std::string(100000, '1') + ".1"),
               std::invalid_argument);
  EXPECT_THROW(parse_framework_target("pytorch==2.1"), std::invalid_argument);
}

const RequirementCheck& item(const FrameworkCheck& c, const std::string& name) {
  for (const auto& r : c.checks)
    if (r.item == name) return r;
  throw std::runtime_error("no check named " + name);
}

TEST(DoctorFramework, MatchingMachine) {
  // Test data machine: CUDA 12.4, cuDNN 8.9.7, driver for 12.4 -- TF 2.15 wants 12.2 / 8.9.
  const FrameworkCheck c =
      check_framework(healthy(), facts(), parse_framework_target("tensorflow==2.15"));
  EXPECT_TRUE(c.all_ok);
  EXPECT_EQ(c.tested_with, "CUDA 12.2, cuDNN 8.9 (Linux)");
  EXPECT_TRUE(item(c, "platform").ok);
}

TEST(DoctorFramework, MismatchesAreNamed) {
  Snapshot s = healthy();
  s.nvidia.runtime_version = 13000;
  s.nvidia.cudnn.compiled_version = s.nvidia.cudnn.loaded_version = 91900;
  const FrameworkCheck c = check_framework(s, facts(), parse_framework_target("tensorflow==2.15"));
  EXPECT_FALSE(c.all_ok);
  EXPECT_FALSE(item(c, "CUDA").ok);
  EXPECT_TRUE(contains(item(c, "CUDA").note, "CUDA 12 libraries"));
  EXPECT_FALSE(item(c, "cuDNN").ok);
  EXPECT_TRUE(item(c, "NVIDIA driver").ok);
  EXPECT_FALSE(
      item(check_framework(no_driver(s), facts(), {"tensorflow", "2.15"}), "NVIDIA driver").ok);
}

TEST(DoctorFramework, NativeWindowsEndsAt210) {
  Snapshot s = healthy();
  s.os = "windows";
  const auto after = check_framework(s, facts(), {"tensorflow", "2.11"});
  EXPECT_FALSE(item(after, "platform").ok);
  EXPECT_TRUE(contains(item(after, "platform").required,
                       "native Windows GPU support ends at TensorFlow 2.10"));
  EXPECT_TRUE(contains(item(after, "platform").note, "WSL2"));
  const auto last = check_framework(s, facts(), {"tensorflow", "2.10.1"});
  EXPECT_TRUE(item(last, "platform").ok);
  EXPECT_TRUE(contains(item(last, "platform").note, "cudnn64_8.dll"));
}

TEST(DoctorFramework, UnknownVersionThrowsWithKnownRange) {
  EXPECT_THROW(tested_build(facts(), {"tensorflow", "2.22"}), std::invalid_argument);
  EXPECT_EQ(tested_build(facts(), {"tensorflow", "2.21"}).cudnn_major, 9);
  try {
    check_framework(healthy(), facts(), {"tensorflow", "9.9"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "2.0 to 2.21")) << e.what();
  }
}

// --- the report ---

TEST(DoctorReport, JsonCarriesVerdictAndGpus) {
  const Snapshot s = healthy();
  const Diagnosis d = diagnose(s, facts());
  const auto j = nlohmann::json::parse(
      to_json(s, d, check_framework(s, facts(), {"tensorflow", "2.15"})).dump());
  EXPECT_TRUE(j.at("diagnosis").at("gpu_usable").get<bool>());
  EXPECT_EQ(j.at("gpus").at(0).at("compute_capability"), "9.0");
  EXPECT_EQ(j.at("gpus").at(0).at("tensor_core_precisions").size(), 4u);
  EXPECT_EQ(j.at("cudnn").at("loaded_version"), "8.9.7");
  EXPECT_EQ(j.at("cuda_runtime"), "12.4");
  EXPECT_TRUE(j.at("env").at("CUDA_VISIBLE_DEVICES").is_null());
  EXPECT_TRUE(j.at("framework_check").at("all_ok").get<bool>());
}

TEST(DoctorReport, TextEndsWithVerdictAndFixes) {
  const Snapshot s = no_driver(healthy());
  const Diagnosis d = diagnose(s, facts());
  std::ostringstream out;
  print_text(out, s, d);
  const std::string text = out.str();
  const auto verdict = text.find("\nNo usable GPU: NVIDIA driver not found");
  ASSERT_NE(verdict, std::string::npos) << text;
  EXPECT_NE(text.find("How to fix:\n  1. ", verdict), std::string::npos) << text;
}

// A backend that loaded and one that did not: both are findings, rendered from the snapshot
// alone (TEST DATA: the versions, file and messages are made up for the rendering).
Snapshot with_backends(Snapshot s) {
  s.backends = {{.backend = "demo",
                 .library = "DemoBLAS",
                 .compiled = "1.2.3",
                 .loaded = "1.2.4",
                 .notes = {"core: Haswell", "file: /opt/demo/libdemo.so.1"},
                 .problem = std::nullopt},
                {.backend = "absent",
                 .library = "AbsentLib",
                 .compiled = "2.0",
                 .loaded = {},
                 .notes = {},
                 .problem = BackendProblem{.problem = "libabsent.so.2: cannot open shared object",
                                           .fix = "apt-get install libabsent2"}}};
  return s;
}

TEST(DoctorReport, JsonListsBackendFindingsWithProblemAndFix) {
  const Snapshot s = with_backends(healthy());
  const auto j = nlohmann::json::parse(to_json(s, diagnose(s, facts())).dump());
  const auto& backends = j.at("backends");
  ASSERT_EQ(backends.size(), 2u) << backends;
  EXPECT_EQ(backends[0].at("backend"), "demo");
  EXPECT_EQ(backends[0].at("library"), "DemoBLAS");
  EXPECT_EQ(backends[0].at("compiled"), "1.2.3");
  EXPECT_EQ(backends[0].at("loaded"), "1.2.4");
  EXPECT_EQ(backends[0].at("notes"),
            nlohmann::json({"core: Haswell", "file: /opt/demo/libdemo.so.1"}));
  EXPECT_TRUE(backends[0].at("problem").is_null());
  EXPECT_TRUE(backends[0].at("fix").is_null());
  EXPECT_TRUE(backends[1].at("loaded").is_null());
  EXPECT_EQ(backends[1].at("problem"), "libabsent.so.2: cannot open shared object");
  EXPECT_EQ(backends[1].at("fix"), "apt-get install libabsent2");
  // Every key the fixed fields had is still there.
  for (const char* key : {"cpu", "driver", "gpus", "cudnn", "cublas", "env", "diagnosis"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST(DoctorReport, TextHasABackendsBlockBeforeTheEnvironment) {
  const Snapshot s = with_backends(healthy());
  std::ostringstream out;
  print_text(out, s, diagnose(s, facts()));
  const std::string text = out.str();
  const auto block = text.find("\nBackends\n");
  ASSERT_NE(block, std::string::npos) << text;
  EXPECT_LT(block, text.find("\nEnvironment\n")) << text;
  const std::string indent(28, ' ');
  EXPECT_NE(text.find("  demo                      DemoBLAS compiled 1.2.3, loaded 1.2.4\n" +
                          indent + "core: Haswell\n" + indent + "file: /opt/demo/libdemo.so.1\n",
                      block),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  absent                    AbsentLib compiled 2.0, NOT LOADED\n" + indent +
                          "problem: libabsent.so.2: cannot open shared object\n" + indent +
                          "fix: apt-get install libabsent2\n",
                      block),
            std::string::npos)
      << text;
}

TEST(DoctorReport, NoBackendFindingsNoBackendsBlock) {
  const Snapshot s = healthy();
  std::ostringstream out;
  print_text(out, s, diagnose(s, facts()));
  EXPECT_EQ(out.str().find("\nBackends\n"), std::string::npos) << out.str();
  EXPECT_EQ(to_json(s, diagnose(s, facts())).at("backends"), nlohmann::json::array());
}

// --- the real machine ---

TEST(DoctorProbe, EveryCpuBackendReportsAFinding) {
  const Snapshot s = lb::probe_machine();
  std::vector<std::string> names;
  for (const auto& f : s.backends) {
    names.push_back(f.backend);
    // A library either loaded (its version known) or says why not and what to do.
    EXPECT_TRUE(!f.loaded.empty() || (f.problem && !f.problem->fix.empty())) << f.backend;
  }
  const auto has = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  EXPECT_EQ(has("onednn"), static_cast<bool>(LAYERBENCH_HAVE_RUN));
  EXPECT_EQ(has("openblas"), static_cast<bool>(LAYERBENCH_HAVE_OPENBLAS));
}

TEST(DoctorProbe, RealMachineGivesAVerdictWithoutCrashing) {
  const Snapshot s = lb::probe_machine();
  EXPECT_GT(s.cpu.threads, 0);
  EXPECT_EQ(s.nvidia.cuda_build, static_cast<bool>(LAYERBENCH_HAVE_CUDA));
  EXPECT_EQ(s.env.count("CUDA_VISIBLE_DEVICES"), 1u);
  const Diagnosis d = diagnose(s, facts());
  EXPECT_FALSE(d.verdict.empty());
  if (!s.nvidia.driver.loaded) {
    // Machines without the NVIDIA driver (like the CI runners) must say exactly that.
    EXPECT_FALSE(d.gpu_usable);
    EXPECT_EQ(d.reason.rfind("NVIDIA driver not found", 0), 0u) << d.reason;
    EXPECT_FALSE(s.nvidia.driver.load_error.empty());
    EXPECT_EQ(s.nvidia.device_count, 0);
  }
}

}  // namespace
}  // namespace lb::doctor
