#include "kernels/cuda/nvml_telemetry.hpp"

#include <chrono>

#include "harness/os/platform.hpp"

namespace lb::cuda {

namespace {
// From nvml.h: nvmlReturn_t NVML_SUCCESS = 0, NVML_ERROR_GPU_IS_LOST = 15; nvmlClockType_t
// NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
constexpr int nvml_success = 0;
constexpr int nvml_error_gpu_is_lost = 15;
constexpr int nvml_clock_sm = 1;
constexpr int nvml_clock_mem = 2;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

NvmlTelemetry::NvmlTelemetry(const std::string& pci_bus_id, const std::string& library,
                             std::function<double()> now_s)
    : now_s_(now_s ? std::move(now_s) : steady_seconds) {
  const std::string name = library.empty() ? platform::nvml_library() : library;
  void* lib = platform::load_library(name, error_);
  if (!lib) {
    error_ = name + ": " + error_;
    return;
  }
  auto sym = [&](const char* symbol) { return platform::find_symbol(lib, symbol); };
  auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
  auto by_bus_id =
      reinterpret_cast<int (*)(const char*, void**)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  auto default_clock = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetDefaultApplicationsClock"));
  auto max_clock = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetMaxClockInfo"));
  error_string_ = reinterpret_cast<const char* (*)(int)>(sym("nvmlErrorString"));
  shutdown_ = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
  if (!init || !by_bus_id || !shutdown_ || !error_string_) {
    error_ = name + " lacks the NVML functions layerbench uses";
    shutdown_ = nullptr;
    return;
  }
  if (const int rc = init(); rc != nvml_success) {
    error_ = std::string("nvmlInit_v2: ") + error_string_(rc);
    shutdown_ = nullptr;
    return;
  }
  if (const int rc = by_bus_id(pci_bus_id.c_str(), &device_); rc != nvml_success) {
    error_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + error_string_(rc);
    return;
  }
  clock_info_ = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetClockInfo"));
  power_usage_ = reinterpret_cast<UnsignedFn>(sym("nvmlDeviceGetPowerUsage"));
  total_energy_ = reinterpret_cast<CounterFn>(sym("nvmlDeviceGetTotalEnergyConsumption"));
  event_reasons_ = reinterpret_cast<CounterFn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (!event_reasons_)  // the name before NVML 12.2
    event_reasons_ = reinterpret_cast<CounterFn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  const std::pair<const char*, bool> found[] = {{"sm_clock", clock_info_ != nullptr},
                                                {"memory_clock", clock_info_ != nullptr},
                                                {"power", power_usage_ != nullptr},
                                                {"energy_counter", total_energy_ != nullptr},
                                                {"clock_event_reasons", event_reasons_ != nullptr}};
  for (const auto& [field, present] : found)
    if (!present) absent_.emplace(field, name + " lacks the function");
  unsigned mhz = 0;
  if ((default_clock && default_clock(device_, nvml_clock_sm, &mhz) == nvml_success && mhz > 0) ||
      (max_clock && max_clock(device_, nvml_clock_sm, &mhz) == nvml_success && mhz > 0))
    default_mhz_ = mhz;
}

NvmlTelemetry::~NvmlTelemetry() {
  if (shutdown_) shutdown_();
}

template <class Value>
std::optional<Value> NvmlTelemetry::field(const char* name, const char* symbol,
                                          const std::function<int(Value&)>& query) {
  if (lost_ || absent_.count(name)) return std::nullopt;
  Value value{};
  const int rc = query(value);
  if (rc == nvml_success) return value;
  if (rc == nvml_error_gpu_is_lost) lost_ = true;
  absent_.emplace(name, std::string(symbol) + ": " + error_string_(rc));
  return std::nullopt;
}

logic::NvmlReading NvmlTelemetry::read() {
  logic::NvmlReading r;
  r.time_s = now_s_();
  if (!error_.empty()) return r;
  r.sm_mhz = field<unsigned>("sm_clock", "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)",
                             [&](unsigned& v) { return clock_info_(device_, nvml_clock_sm, &v); });
  r.memory_mhz =
      field<unsigned>("memory_clock", "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)",
                      [&](unsigned& v) { return clock_info_(device_, nvml_clock_mem, &v); });
  r.power_mw = field<unsigned>("power", "nvmlDeviceGetPowerUsage",
                               [&](unsigned& v) { return power_usage_(device_, &v); });
  r.energy_mj =
      field<unsigned long long>("energy_counter", "nvmlDeviceGetTotalEnergyConsumption",
                                [&](unsigned long long& v) { return total_energy_(device_, &v); });
  r.event_reasons =
      field<unsigned long long>("clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons",
                                [&](unsigned long long& v) { return event_reasons_(device_, &v); });
  return r;
}

}  // namespace lb::cuda
