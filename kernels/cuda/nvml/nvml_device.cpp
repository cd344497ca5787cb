#include "kernels/cuda/nvml/nvml_device.hpp"

#include "harness/os/platform.hpp"

namespace lb::cuda {

NvmlDevice::NvmlDevice(const std::string& pci_bus_id, const std::string& library)
    : library_(library.empty() ? platform::nvml_library() : library) {
  lib_ = platform::load_library(library_, error_);
  if (!lib_) {
    error_ = library_ + ": " + error_;
    return;
  }
  auto init = function<int (*)()>("nvmlInit_v2");
  auto by_bus_id = function<int (*)(const char*, void**)>("nvmlDeviceGetHandleByPciBusId_v2");
  error_string_ = function<const char* (*)(int)>("nvmlErrorString");
  auto shutdown = function<int (*)()>("nvmlShutdown");
  if (!init || !by_bus_id || !shutdown || !error_string_) {
    error_ = library_ + " lacks the NVML functions layerbench uses";
    return;
  }
  if (const int rc = init(); rc != nvml_success) {
    error_ = "nvmlInit_v2: " + error_text(rc);
    return;
  }
  shutdown_ = shutdown;
  void* device = nullptr;
  if (const int rc = by_bus_id(pci_bus_id.c_str(), &device); rc != nvml_success) {
    error_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + error_text(rc);
    return;
  }
  device_ = device;
}

NvmlDevice::~NvmlDevice() {
  if (shutdown_) shutdown_();
}

void* NvmlDevice::find(const char* symbol) const {
  return lib_ ? platform::find_symbol(lib_, symbol) : nullptr;
}

std::string NvmlDevice::error_text(int status) const {
  return error_string_ ? error_string_(status) : "NVML status " + std::to_string(status);
}

}  // namespace lb::cuda
