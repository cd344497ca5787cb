#include "harness/doctor/probe.hpp"

#include <cstddef>
#include <filesystem>

#include "harness/doctor/versions.hpp"
#include "harness/doctor/windows_dlls.hpp"
#include "harness/measure/cpu_peak.hpp"
#include "harness/os/platform.hpp"

namespace lb::doctor {
namespace {

CpuInfo probe_cpu(const ProbeOptions& options) {
  const platform::CpuFeatures f = platform::cpu_features();
  CpuInfo cpu;
  cpu.model = f.model;
  cpu.cores = f.cores;
  cpu.threads = f.threads;
  cpu.avx2 = f.avx2;
  cpu.avx512f = f.avx512f;
  cpu.avx512_bf16 = f.avx512_bf16;
  cpu.avx512_fp16 = f.avx512_fp16;
  cpu.amx = f.amx;
  if (options.measure_cpu_peak) {
    CpuPeakOptions peak_options;
    peak_options.threads = options.cpu_peak_threads;
    const CpuPeak peak = measure_cpu_peak(peak_options);
    cpu.fma_peak_gflops = peak.gflops;
    cpu.fma_peak_method = peak.method;
  }
  return cpu;
}

// Signatures from cuda.h and nvml.h; both return 0 on success.
using CuDriverGetVersion = int (*)(int*);
using NvmlInit = int (*)();
using NvmlSystemGetDriverVersion = int (*)(char*, unsigned);
using NvmlShutdown = int (*)();

// NVML's driver version text, for systems without /proc/driver/nvidia/version (Windows).
std::string nvml_driver_version() {
  std::string error;
  void* nvml = platform::load_library(platform::nvml_library(), error);
  if (!nvml) return "";
  auto init = reinterpret_cast<NvmlInit>(platform::find_symbol(nvml, "nvmlInit_v2"));
  auto get = reinterpret_cast<NvmlSystemGetDriverVersion>(
      platform::find_symbol(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<NvmlShutdown>(platform::find_symbol(nvml, "nvmlShutdown"));
  if (!init || !get || !shutdown || init() != 0) return "";
  char buffer[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  const bool ok = get(buffer, sizeof buffer) == 0;
  shutdown();
  return ok ? buffer : "";
}

DriverInfo probe_driver() {
  DriverInfo d;
  d.library = platform::nvidia_driver_library();
  void* driver = platform::load_library(d.library, d.load_error);
  if (!driver) return d;
  d.loaded = true;
  if (const std::string path = platform::library_path(driver); !path.empty()) d.library = path;
  if (auto get = reinterpret_cast<CuDriverGetVersion>(
          platform::find_symbol(driver, "cuDriverGetVersion"))) {
    int version = 0;
    if (get(&version) == 0) d.max_cuda_version = version;
  }
  if (const auto text = platform::nvidia_kernel_module_text())
    d.version = driver_version_from_module_text(*text);
  if (d.version.empty()) d.version = nvml_driver_version();
  return d;
}

// Signatures of the version exports (windows_dlls.cpp names them); 0 is success where an int
// status is returned. cublasGetProperty's first argument is libraryPropertyType: 0 major,
// 1 minor, 2 patch level (library_types.h).
using CudaRuntimeGetVersion = int (*)(int*);
using CublasGetProperty = int (*)(int, int*);
using SizeVersion = std::size_t (*)();

// The version `dll` reports, read from the copy that was found (loaded by its full path).
void read_dll_version(DllInfo& dll) {
  const DllFamily* family = dll_family(dll.name);
  if (!family || !family->version_symbol || dll.family == "driver") return;  // driver: above
  void* library =
      platform::load_library((std::filesystem::path(dll.folder) / dll.name).string(), dll.error);
  if (!library) return;
  void* symbol = platform::find_symbol(library, family->version_symbol);
  if (!symbol) {
    dll.error = dll.name + " does not export " + family->version_symbol;
    return;
  }
  if (dll.family == "cudart") {
    int version = 0;
    if (reinterpret_cast<CudaRuntimeGetVersion>(symbol)(&version) == 0 && version > 0)
      dll.version = cuda_version_text(version);
  } else if (dll.family == "cublas") {
    int part[3] = {};
    auto get = reinterpret_cast<CublasGetProperty>(symbol);
    if (get(0, &part[0]) == 0 && get(1, &part[1]) == 0 && get(2, &part[2]) == 0)
      dll.version = text({part[0], part[1], part[2]});
  } else {
    const auto version = static_cast<int>(reinterpret_cast<SizeVersion>(symbol)());
    dll.version = text(dll.family == "cudnn" ? decode_cudnn_version(version)
                                             : decode_cublas_version(version));
  }
  if (dll.version.empty()) dll.error = std::string(family->version_symbol) + " failed";
}

// The NVIDIA DLLs along Windows' DLL search order, each with the version it reports.
std::vector<DllInfo> probe_windows_dlls(const std::string& path_value) {
  std::vector<FolderListing> listings;
  for (const auto& [folder, origin] : platform::dll_search_folders_before_path())
    listings.push_back({folder, origin, {}});
  for (const auto& folder : path_folders(path_value)) listings.push_back({folder, "PATH", {}});
  for (auto& listing : listings) {
    std::error_code ec;  // a folder that is missing or unreadable lists nothing
    for (auto it = std::filesystem::directory_iterator(listing.folder, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      listing.files.push_back(it->path().filename().string());
  }
  std::vector<DllInfo> dlls = find_nvidia_dlls(listings);
  for (auto& dll : dlls) read_dll_version(dll);
  return dlls;
}

}  // namespace

Snapshot probe_host(const ProbeOptions& options) {
  Snapshot s;
  s.os = platform::is_windows() ? "windows" : "linux";
  s.cpu = probe_cpu(options);
  s.nvidia.driver = probe_driver();
  const char* library_path_variable = platform::is_windows() ? "PATH" : "LD_LIBRARY_PATH";
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NVIDIA_TF32_OVERRIDE",
                           "CUBLAS_WORKSPACE_CONFIG", library_path_variable})
    s.env[name] = platform::getenv_opt(name);
  if (platform::is_windows()) {
    s.nvidia.dll_search = true;
    s.nvidia.dlls = probe_windows_dlls(platform::getenv_opt("PATH").value_or(""));
  }
  return s;
}

}  // namespace lb::doctor
