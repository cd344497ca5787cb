#include "kernels/cuda/nvml/nvml_processes.hpp"

#include "kernels/cuda/nvml/nvml_device.hpp"

namespace lb::cuda {

namespace {
// From nvml.h: NVML_VALUE_NOT_AVAILABLE (all ones) for a memory figure NVML may not give;
// nvmlProcessInfo_v3_t's layout.
constexpr unsigned long long nvml_value_not_available = ~0ull;
struct NvmlProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
}  // namespace

std::optional<std::vector<GpuProcess>> nvml_compute_processes(const std::string& pci_bus_id,
                                                              std::string& error,
                                                              const std::string& library) {
  const NvmlDevice nvml(pci_bus_id, library);
  if (!nvml.error().empty()) {
    error = nvml.error();
    return std::nullopt;
  }
  const auto processes = nvml.function<int (*)(void*, unsigned*, NvmlProcessInfo*)>(
      "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!processes) {
    error = nvml.library() + " lacks nvmlDeviceGetComputeRunningProcesses_v3";
    return std::nullopt;
  }
  // Ask with room for 64; NVML says how many there are when that is too few (the list may grow
  // between the calls, hence the loop).
  std::vector<NvmlProcessInfo> infos(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned>(infos.size());
    const int rc = processes(nvml.handle(), &count, infos.data());
    if (rc == nvml_insufficient_size) {
      infos.resize(count + 16);
      continue;
    }
    if (rc != nvml_success) {
      error = "nvmlDeviceGetComputeRunningProcesses_v3: " + nvml.error_text(rc);
      return std::nullopt;
    }
    std::vector<GpuProcess> found;
    for (unsigned i = 0; i < count; ++i) {
      GpuProcess p{infos[i].pid, std::nullopt};
      if (infos[i].used_gpu_memory != nvml_value_not_available)
        p.used_bytes = infos[i].used_gpu_memory;
      found.push_back(p);
    }
    return found;
  }
  error = "nvmlDeviceGetComputeRunningProcesses_v3: list kept growing";
  return std::nullopt;
}

}  // namespace lb::cuda
