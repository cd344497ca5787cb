#pragma once
// The CUDA backend's plugin (liblayerbench_cuda.so) as the binary sees it: one exported entry
// point returning this table. The plugin links cuDNN, cuBLASLt and (statically) the CUDA runtime;
// the binary links none of them and loads the plugin at run time (kernels/cuda/loader/), so a
// broken library on the path is the doctor's finding rather than a binary that cannot start.
// C++ types cross the boundary: binary and plugin must come from one build, which build_id
// identifies and the loader checks.
#include <memory>
#include <string>

#include "build_info.hpp"
#include "harness/api/backend.hpp"
#include "harness/doctor/snapshot.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda {

struct PluginApi {
  const char* build_id;
  // The GPUs: count (or CUDA's error) and each one's properties (cuda_probe.hpp).
  void (*probe_devices)(doctor::Snapshot& snapshot);
  // The backend for one GPU (cuda_backend.hpp); throws LibraryError when it cannot be opened.
  std::unique_ptr<Backend> (*make_backend)(int device_index, const CudaOptions& options);
};

// The exported function returning the table, and its type.
inline constexpr const char* plugin_entry_symbol = "layerbench_cuda_plugin";
using PluginEntry = const PluginApi* (*)();

// "layerbench 0.1.0 (git 0123456789ab), Release build, GNU 12.2.0".
inline std::string build_id() {
  return std::string("layerbench ") + build::version + " (git " + build::git_revision + "), " +
         build::build_type + " build, " + build::compiler;
}

}  // namespace lb::cuda
