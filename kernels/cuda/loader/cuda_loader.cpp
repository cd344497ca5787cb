#include "kernels/cuda/loader/cuda_loader.hpp"

// Headers for their version macros only: nothing of these libraries is linked.
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cudnn_version.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/doctor/loader_message.hpp"
#include "harness/os/platform.hpp"
#include "kernels/cuda/loader/elf_file.hpp"

namespace lb::cuda {
namespace {

struct Loaded {
  doctor::LibraryInfo cudnn, cublas;
  doctor::PluginInfo plugin;
  const PluginApi* api = nullptr;
};

// cudnnGetVersion, cudnnGetCudartVersion, cublasLtGetVersion, cublasLtGetCudartVersion.
using SizeFunction = std::size_t (*)();

// Loads `soname` (left loaded: the plugin's own dependency on it is then this same file) and
// reads what it reports of itself.
doctor::LibraryInfo load(const std::string& soname, int compiled_version,
                         const char* version_symbol, const char* cuda_symbol) {
  doctor::LibraryInfo lib;
  lib.compiled_version = compiled_version;
  // The file the loader would take, checked first: a truncated one would crash it.
  for (const std::string& folder : platform::library_search_folders()) {
    const std::filesystem::path file = std::filesystem::path(folder) / soname;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    lib.error = elf_truncation(file.string());
    if (!lib.error.empty()) {
      lib.path = file.string();
      return lib;
    }
    break;
  }
  void* handle = platform::load_library(soname, lib.error);
  if (!handle) {
    lib.path = doctor::file_in_loader_message(lib.error);
    return lib;
  }
  lib.path = platform::library_path(handle);
  const auto version =
      reinterpret_cast<SizeFunction>(platform::find_symbol(handle, version_symbol));
  const auto cuda = reinterpret_cast<SizeFunction>(platform::find_symbol(handle, cuda_symbol));
  if (!version || !cuda) {
    lib.error = lib.path + " (loaded as " + soname + ") does not export " +
                (version ? cuda_symbol : version_symbol);
    return lib;
  }
  lib.loaded_version = static_cast<int>(version());
  lib.cuda_version = static_cast<int>(cuda());
  lib.loaded = lib.loaded_version > 0;
  if (!lib.loaded) lib.error = lib.path + ": " + version_symbol + "() returned 0";
  return lib;
}

void load_plugin(Loaded& l) {
  const std::filesystem::path exe_dir = platform::executable_path().parent_path();
  const std::filesystem::path relative =
      std::filesystem::path(LAYERBENCH_CUDA_PLUGIN_DIR) / LAYERBENCH_CUDA_PLUGIN_FILE;
  const std::vector<std::filesystem::path> candidates{exe_dir / relative,
                                                      exe_dir.parent_path() / relative};
  l.plugin.path = candidates.front().string();
  if (!l.cudnn.loaded || !l.cublas.loaded) {
    l.plugin.error =
        std::string("it needs ") + (l.cudnn.loaded ? "cuBLAS" : "cuDNN") + ", which did not load";
    return;
  }
  std::error_code ec;
  const auto found = std::find_if(candidates.begin(), candidates.end(),
                                  [&](const auto& c) { return std::filesystem::exists(c, ec); });
  if (found == candidates.end()) {
    l.plugin.error = std::string(LAYERBENCH_CUDA_PLUGIN_FILE) + " not found in " +
                     candidates[0].parent_path().string() + " or " +
                     candidates[1].parent_path().string();
    return;
  }
  l.plugin.path = found->string();
  l.plugin.error = elf_truncation(l.plugin.path);
  if (!l.plugin.error.empty()) return;
  void* handle = platform::load_library(l.plugin.path, l.plugin.error);
  if (!handle) return;
  const auto entry =
      reinterpret_cast<PluginEntry>(platform::find_symbol(handle, plugin_entry_symbol));
  if (!entry) {
    l.plugin.error = l.plugin.path + " does not export " + plugin_entry_symbol;
    return;
  }
  const PluginApi* api = entry();  // build_id first: readable whatever the build
  if (api->build_id != build_id()) {
    l.plugin.error = l.plugin.path + " is from another build (" + api->build_id +
                     ") than this binary (" + build_id() + ")";
    return;
  }
  l.plugin.loaded = true;
  l.api = api;
}

const Loaded& loaded() {
  static const Loaded once = [] {
    Loaded l;
    l.cudnn = load("libcudnn.so." + std::to_string(CUDNN_MAJOR), CUDNN_VERSION, "cudnnGetVersion",
                   "cudnnGetCudartVersion");
    l.cublas = load("libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR), CUBLAS_VERSION,
                    "cublasLtGetVersion", "cublasLtGetCudartVersion");
    load_plugin(l);
    return l;
  }();
  return once;
}

}  // namespace

void probe_libraries(doctor::Snapshot& s) {
  const Loaded& l = loaded();
  s.nvidia.runtime_version = CUDART_VERSION;  // the plugin's, linked statically into it
  s.nvidia.cudnn = l.cudnn;
  s.nvidia.cublas = l.cublas;
  s.nvidia.cuda_plugin = l.plugin;
}

const PluginApi& plugin() {
  const Loaded& l = loaded();
  if (!l.api) throw LibraryError("the CUDA backend is unavailable: " + l.plugin.error);
  return *l.api;
}

}  // namespace lb::cuda
