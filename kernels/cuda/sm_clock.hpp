#pragma once
// The GPU's SM clock through NVML, loaded at run time (libnvidia-ml ships with the driver, not the
// toolkit, so nothing links against it). NVML types are declared locally.
#include <optional>
#include <string>

namespace lb::cuda {

class SmClock {
 public:
  // The GPU is named by its PCI bus id, the one identifier CUDA and NVML share (their device
  // indices can differ).
  explicit SmClock(const std::string& pci_bus_id);
  ~SmClock();
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  // Why NVML cannot be used; empty when it can.
  const std::string& error() const { return error_; }
  std::optional<unsigned> current_mhz() const;
  // The default applications clock, or the maximum clock where the GPU reports no default.
  std::optional<unsigned> default_mhz() const { return default_mhz_; }

 private:
  using GetClockFn = int (*)(void* device, int clock_type, unsigned* mhz);
  void* device_ = nullptr;
  GetClockFn get_clock_info_ = nullptr;
  int (*shutdown_)() = nullptr;
  std::optional<unsigned> default_mhz_;
  std::string error_;
};

}  // namespace lb::cuda
