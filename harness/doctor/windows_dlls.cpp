#include "harness/doctor/windows_dlls.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace lb::doctor {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool matches(const std::string& file_name, const DllFamily& family) {
  const std::string name = lower(file_name), prefix = lower(family.prefix),
                    suffix = lower(family.suffix);
  return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
         name.ends_with(suffix);
}

}  // namespace

const std::vector<DllFamily>& nvidia_dll_families() {
  // Version exports as NVIDIA's headers declare them: cuDriverGetVersion(int*) (cuda.h),
  // cudaRuntimeGetVersion(int*) (cuda_runtime_api.h), cublasGetProperty(type, int*)
  // (cublas_api.h), cublasLtGetVersion() and cudnnGetVersion() returning size_t.
  static const std::vector<DllFamily> families = {
      {"driver", "NVIDIA driver", "nvcuda", ".dll", "cuDriverGetVersion"},
      {"cudart", "CUDA runtime", "cudart64_", ".dll", "cudaRuntimeGetVersion"},
      {"cublas", "cuBLAS", "cublas64_", ".dll", "cublasGetProperty"},
      {"cublasLt", "cuBLASLt", "cublasLt64_", ".dll", "cublasLtGetVersion"},
      {"cudnn", "cuDNN", "cudnn64_", ".dll", "cudnnGetVersion"},
      {"cudnn_sublibrary", "cuDNN 9 sub-library", "cudnn_", "64_9.dll", nullptr}};
  return families;
}

const DllFamily* dll_family(const std::string& file_name) {
  for (const auto& family : nvidia_dll_families()) {
    // nvcuda.dll is one exact name, not a family named by version.
    if (std::string(family.name) == "driver") {
      if (lower(file_name) == "nvcuda.dll") return &family;
    } else if (matches(file_name, family)) {
      return &family;
    }
  }
  return nullptr;
}

std::vector<std::string> path_folders(const std::string& path_value) {
  std::vector<std::string> folders;
  std::size_t start = 0;
  while (start <= path_value.size()) {
    const std::size_t end = std::min(path_value.find(';', start), path_value.size());
    std::string folder = path_value.substr(start, end - start);
    folder.erase(std::remove(folder.begin(), folder.end(), '"'), folder.end());
    if (folder.find_first_not_of(" \t") != std::string::npos) folders.push_back(folder);
    start = end + 1;
  }
  return folders;
}

std::vector<DllInfo> find_nvidia_dlls(const std::vector<FolderListing>& listings) {
  std::vector<DllInfo> found;
  std::set<std::string> seen;  // lower-case names: Windows file names ignore case
  for (const auto& listing : listings) {
    std::vector<std::string> files = listing.files;
    std::sort(files.begin(), files.end());  // a stable order whatever the file system's
    for (const auto& file : files) {
      const DllFamily* family = dll_family(file);
      if (!family || !seen.insert(lower(file)).second) continue;
      found.push_back({file, family->name, listing.folder, listing.origin, "", ""});
    }
  }
  return found;
}

}  // namespace lb::doctor
