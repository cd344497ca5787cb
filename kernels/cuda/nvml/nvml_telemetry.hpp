#pragma once
// The GPU's clocks, board power, energy counter and clock-event reasons through NVML
// (nvml_device.hpp). NVML types are declared locally. Each reading is optional: a missing function
// or NVML_ERROR_NOT_SUPPORTED leaves its field out for good and absent() says why.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "kernels/cuda/logic/telemetry.hpp"
#include "kernels/cuda/nvml/nvml_device.hpp"

namespace lb::cuda {

class NvmlTelemetry {
 public:
  // The GPU with this PCI bus id; `library` is the file to load (NvmlDevice's); `now_s` stamps
  // readings (the steady clock when not given).
  explicit NvmlTelemetry(const std::string& pci_bus_id, const std::string& library = "",
                         std::function<double()> now_s = {});

  // Why NVML cannot be used at all; empty when it can.
  const std::string& error() const { return nvml_.error(); }
  std::optional<unsigned> current_mhz() { return read().sm_mhz; }
  // The default applications clock, or the maximum clock where the GPU reports no default.
  std::optional<unsigned> default_mhz() const { return default_mhz_; }
  // Every field NVML gives now. After NVML_ERROR_GPU_IS_LOST, lost() and nothing more is read.
  logic::NvmlReading read();
  // The clock readings are stamped with.
  double now_s() const { return now_s_(); }
  bool lost() const { return lost_; }
  // Field ("sm_clock", "memory_clock", "power", "energy_counter", "clock_event_reasons") -> why it
  // has no reading.
  const std::map<std::string, std::string>& absent() const { return absent_; }

 private:
  using ClockFn = int (*)(void* device, int clock_type, unsigned* value);
  using UnsignedFn = int (*)(void* device, unsigned* value);
  using CounterFn = int (*)(void* device, unsigned long long* value);
  // Reads one field with `query` (an NVML call returning its status); an error other than a
  // lost GPU leaves the field out for good, recorded in absent_.
  template <class Value>
  std::optional<Value> field(const char* name, const char* symbol,
                             const std::function<int(Value&)>& query);

  NvmlDevice nvml_;
  ClockFn clock_info_ = nullptr;
  UnsignedFn power_usage_ = nullptr;
  CounterFn total_energy_ = nullptr, event_reasons_ = nullptr;
  std::function<double()> now_s_;
  std::optional<unsigned> default_mhz_;
  std::map<std::string, std::string> absent_;
  bool lost_ = false;
};

}  // namespace lb::cuda
