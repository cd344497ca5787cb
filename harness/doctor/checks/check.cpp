#include "harness/doctor/checks/check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace lb::doctor {

std::string CheckContext::minimum_driver_for(int cuda_version) const {
  const DriverMinimum* d = minimum_driver(facts, cuda_version);
  if (!d) return "";
  return windows() ? d->windows_driver : d->linux_driver;
}

std::string CheckContext::driver_requirement(int cuda_version) const {
  const std::string min = minimum_driver_for(cuda_version);
  const std::string os = windows() ? "Windows" : "Linux";
  if (min.empty())
    return "a driver whose supported CUDA version (shown by nvidia-smi) is at least " +
           cuda_version_text(cuda_version) + "; layerbench's facts do not record the " + os +
           " minimum for CUDA " + std::to_string(cuda_major(cuda_version)) + ".x";
  return "driver >= " + min + ", the " + os + " minimum for CUDA " +
         std::to_string(cuda_major(cuda_version)) + ".x";
}

std::optional<std::string> CheckContext::env(const std::string& key) const {
  const auto it = s.env.find(key);
  return it == s.env.end() ? std::nullopt : it->second;
}

std::string gib(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buffer;
}

std::string cc_text(const GpuInfo& g) {
  return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
}

std::string gpu_label(const GpuInfo& g) {
  return "GPU " + std::to_string(g.index) + " (" + g.name + ", compute capability " + cc_text(g) +
         ")";
}

std::string where(const DllInfo& dll) { return dll.folder + " (" + dll.origin + ")"; }

bool lower_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string windows_dll_note() {
  return "Windows finds nvcuda.dll (the driver, in System32), cudart64_*.dll, cudnn64_*.dll and "
         "cublas64_*.dll through PATH; the names carry the version, so a DLL of another version "
         "counts as not found.";
}

std::string needed_release(const CheckContext& c, const char* display, const LibraryInfo& lib,
                           LibraryVersion (*decode)(int)) {
  return std::string(display) + " " + std::to_string(decode(lib.compiled_version).major) +
         " for CUDA " + std::to_string(cuda_major(c.s.nvidia.runtime_version)) + ".x";
}

std::string broken_file_fix(const CheckContext& c, const std::string& file,
                            const std::string& release) {
  return "Remove or fix " + file + ": the loader takes the first file of its name along " +
         c.library_path_variable() +
         ", then the run path layerbench was built with. Or reinstall " + release + ".";
}

}  // namespace lb::doctor
