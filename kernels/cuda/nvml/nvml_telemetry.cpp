#include "kernels/cuda/nvml/nvml_telemetry.hpp"

#include <chrono>

namespace lb::cuda {

namespace {
// From nvml.h: nvmlClockType_t NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
constexpr int nvml_clock_sm = 1;
constexpr int nvml_clock_mem = 2;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

NvmlTelemetry::NvmlTelemetry(const std::string& pci_bus_id, const std::string& library,
                             std::function<double()> now_s)
    : nvml_(pci_bus_id, library), now_s_(now_s ? std::move(now_s) : steady_seconds) {
  if (!nvml_.error().empty()) return;
  clock_info_ = nvml_.function<ClockFn>("nvmlDeviceGetClockInfo");
  power_usage_ = nvml_.function<UnsignedFn>("nvmlDeviceGetPowerUsage");
  total_energy_ = nvml_.function<CounterFn>("nvmlDeviceGetTotalEnergyConsumption");
  event_reasons_ = nvml_.function<CounterFn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!event_reasons_)  // the name before NVML 12.2
    event_reasons_ = nvml_.function<CounterFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  const std::pair<const char*, bool> found[] = {{"sm_clock", clock_info_ != nullptr},
                                                {"memory_clock", clock_info_ != nullptr},
                                                {"power", power_usage_ != nullptr},
                                                {"energy_counter", total_energy_ != nullptr},
                                                {"clock_event_reasons", event_reasons_ != nullptr}};
  for (const auto& [field, present] : found)
    if (!present) absent_.emplace(field, nvml_.library() + " lacks the function");
  auto default_clock = nvml_.function<ClockFn>("nvmlDeviceGetDefaultApplicationsClock");
  auto max_clock = nvml_.function<ClockFn>("nvmlDeviceGetMaxClockInfo");
  void* device = nvml_.handle();
  unsigned mhz = 0;
  if ((default_clock && default_clock(device, nvml_clock_sm, &mhz) == nvml_success && mhz > 0) ||
      (max_clock && max_clock(device, nvml_clock_sm, &mhz) == nvml_success && mhz > 0))
    default_mhz_ = mhz;
}

template <class Value>
std::optional<Value> NvmlTelemetry::field(const char* name, const char* symbol,
                                          const std::function<int(Value&)>& query) {
  if (lost_ || absent_.count(name)) return std::nullopt;
  Value value{};
  const int rc = query(value);
  if (rc == nvml_success) return value;
  if (rc == nvml_error_gpu_is_lost) lost_ = true;
  absent_.emplace(name, std::string(symbol) + ": " + nvml_.error_text(rc));
  return std::nullopt;
}

logic::NvmlReading NvmlTelemetry::read() {
  logic::NvmlReading r;
  r.time_s = now_s_();
  if (!error().empty()) return r;
  r.sm_mhz = field<unsigned>("sm_clock", "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)", [&](unsigned& v) {
    return clock_info_(nvml_.handle(), nvml_clock_sm, &v);
  });
  r.memory_mhz =
      field<unsigned>("memory_clock", "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)",
                      [&](unsigned& v) { return clock_info_(nvml_.handle(), nvml_clock_mem, &v); });
  r.power_mw = field<unsigned>("power", "nvmlDeviceGetPowerUsage",
                               [&](unsigned& v) { return power_usage_(nvml_.handle(), &v); });
  r.energy_mj = field<unsigned long long>(
      "energy_counter", "nvmlDeviceGetTotalEnergyConsumption",
      [&](unsigned long long& v) { return total_energy_(nvml_.handle(), &v); });
  r.event_reasons = field<unsigned long long>(
      "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons",
      [&](unsigned long long& v) { return event_reasons_(nvml_.handle(), &v); });
  return r;
}

}  // namespace lb::cuda
