#include "kernels/cuda/sm_clock.hpp"

#include "harness/platform.hpp"

namespace lb::cuda {

namespace {
// From nvml.h: nvmlReturn_t NVML_SUCCESS = 0; nvmlClockType_t NVML_CLOCK_SM = 1.
constexpr int nvml_success = 0;
constexpr int nvml_clock_sm = 1;
}  // namespace

SmClock::SmClock(const std::string& pci_bus_id) {
  const std::string name = platform::nvml_library();
  void* lib = platform::load_library(name, error_);
  if (!lib) {
    error_ = name + ": " + error_;
    return;
  }
  auto sym = [&](const char* symbol) { return platform::find_symbol(lib, symbol); };
  auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
  auto by_bus_id =
      reinterpret_cast<int (*)(const char*, void**)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  auto default_clock = reinterpret_cast<GetClockFn>(sym("nvmlDeviceGetDefaultApplicationsClock"));
  auto max_clock = reinterpret_cast<GetClockFn>(sym("nvmlDeviceGetMaxClockInfo"));
  auto error_string = reinterpret_cast<const char* (*)(int)>(sym("nvmlErrorString"));
  get_clock_info_ = reinterpret_cast<GetClockFn>(sym("nvmlDeviceGetClockInfo"));
  shutdown_ = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
  if (!init || !by_bus_id || !get_clock_info_ || !shutdown_ || !error_string) {
    error_ = name + " lacks the NVML functions layerbench uses";
    get_clock_info_ = nullptr, shutdown_ = nullptr;
    return;
  }
  if (const int rc = init(); rc != nvml_success) {
    error_ = std::string("nvmlInit_v2: ") + error_string(rc);
    get_clock_info_ = nullptr, shutdown_ = nullptr;
    return;
  }
  if (const int rc = by_bus_id(pci_bus_id.c_str(), &device_); rc != nvml_success) {
    error_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + error_string(rc);
    get_clock_info_ = nullptr;
    return;
  }
  unsigned mhz = 0;
  if ((default_clock && default_clock(device_, nvml_clock_sm, &mhz) == nvml_success && mhz > 0) ||
      (max_clock && max_clock(device_, nvml_clock_sm, &mhz) == nvml_success && mhz > 0))
    default_mhz_ = mhz;
}

SmClock::~SmClock() {
  if (shutdown_) shutdown_();
}

std::optional<unsigned> SmClock::current_mhz() const {
  unsigned mhz = 0;
  if (get_clock_info_ && get_clock_info_(device_, nvml_clock_sm, &mhz) == nvml_success) return mhz;
  return std::nullopt;
}

}  // namespace lb::cuda
