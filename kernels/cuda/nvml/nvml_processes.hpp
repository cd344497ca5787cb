#pragma once
// The compute processes NVML sees on one GPU (nvml_device.hpp), for the results file's
// context.machine_state: another program on the GPU shares it with the run.
#include <optional>
#include <string>
#include <vector>

#include "harness/api/gpu_processes.hpp"

namespace lb::cuda {

// The compute processes on the GPU with this PCI bus id; empty optional and `error` set when NVML
// is absent or refuses. `library` as NvmlDevice's.
std::optional<std::vector<GpuProcess>> nvml_compute_processes(const std::string& pci_bus_id,
                                                              std::string& error,
                                                              const std::string& library = "");

}  // namespace lb::cuda
