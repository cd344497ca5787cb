#pragma once
// NVML opened for one GPU: the library loaded at run time (libnvidia-ml ships with the driver,
// not the toolkit, so nothing links against it), initialised, and the device found by its PCI
// bus id, the one identifier CUDA and NVML share (their device indices can differ). The one
// loader of NVML: the telemetry and the compute-process list both read through it.
#include <string>

namespace lb::cuda {

// From nvml.h: nvmlReturn_t values layerbench tells apart.
inline constexpr int nvml_success = 0;
inline constexpr int nvml_insufficient_size = 7;
inline constexpr int nvml_error_gpu_is_lost = 15;

class NvmlDevice {
 public:
  // `library` is the file to load; empty: the platform's NVML.
  explicit NvmlDevice(const std::string& pci_bus_id, const std::string& library = "");
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  // Why NVML cannot be used for this device; empty when it can.
  const std::string& error() const { return error_; }
  // The device handle NVML's per-device calls take; null after an error.
  void* handle() const { return device_; }
  // An NVML function by name, as `Fn`; null when this library lacks it.
  template <class Fn>
  Fn function(const char* symbol) const {
    return reinterpret_cast<Fn>(find(symbol));
  }
  // nvmlErrorString's text for a status.
  std::string error_text(int status) const;
  const std::string& library() const { return library_; }

 private:
  void* find(const char* symbol) const;

  std::string library_;
  void* lib_ = nullptr;
  void* device_ = nullptr;
  const char* (*error_string_)(int) = nullptr;
  int (*shutdown_)() = nullptr;
  std::string error_;
};

}  // namespace lb::cuda
