#pragma once
// The summary of NVML's readings around a point's timed samples (no NVML call here): clock
// minimum and median, board power median, the energy over the samples, the clock-event reasons
// by name, and which samples a power or thermal cap throttled.
#include <optional>
#include <string>
#include <vector>

#include "harness/telemetry.hpp"

namespace lb::cuda::logic {

// nvmlClocksEventReason* bits (nvml.h; the older names are nvmlClocksThrottleReason*).
inline constexpr unsigned long long reason_gpu_idle = 0x1;
inline constexpr unsigned long long reason_applications_clocks_setting = 0x2;
inline constexpr unsigned long long reason_sw_power_cap = 0x4;
inline constexpr unsigned long long reason_hw_slowdown = 0x8;
inline constexpr unsigned long long reason_sync_boost = 0x10;
inline constexpr unsigned long long reason_sw_thermal_slowdown = 0x20;
inline constexpr unsigned long long reason_hw_thermal_slowdown = 0x40;
inline constexpr unsigned long long reason_hw_power_brake_slowdown = 0x80;
inline constexpr unsigned long long reason_display_clock_setting = 0x100;

// One reading; a field is empty when NVML did not give it.
struct NvmlReading {
  double time_s = 0;                                // the host's steady clock
  std::optional<unsigned> sm_mhz, memory_mhz;       // nvmlDeviceGetClockInfo
  std::optional<unsigned> power_mw;                 // nvmlDeviceGetPowerUsage
  std::optional<unsigned long long> energy_mj;      // nvmlDeviceGetTotalEnergyConsumption
  std::optional<unsigned long long> event_reasons;  // nvmlDeviceGetCurrentClocksEventReasons
};

// The readings just before a timed sample was enqueued and just after its stop event.
struct SampleReadings {
  NvmlReading before, after;
};

// The names of the reasons set in `mask` ("sw_power_cap", ...), and "unknown_0x..." for bits
// nvml.h does not name.
std::vector<std::string> reason_names(unsigned long long mask);
// Whether `mask` has a power or thermal cap holding the clock down (software power cap,
// hardware slowdown, software or hardware thermal slowdown, hardware power brake).
bool cap_throttled(unsigned long long mask);
bool sample_throttled(const SampleReadings& sample);

// The energy over the samples' windows: the energy counter's deltas when every sample has
// them, otherwise the power readings integrated over each window (trapezoids); `method` says
// which ("energy_counter", "power_integrated"), `why_not_counter` why the counter was not used,
// and with neither, `joules` is empty.
struct EnergyEstimate {
  std::optional<double> joules;
  std::string method;
  std::string why_not_counter;
};
EnergyEstimate energy_over(const std::vector<SampleReadings>& samples);

// The point's telemetry over `samples`. `absent` (field -> why) is the reader's record of what
// NVML did not give; a field with no reading at all gets "no reading" there if not already.
DeviceTelemetry summarize_telemetry(const std::vector<SampleReadings>& samples,
                                    std::map<std::string, std::string> absent, bool device_lost);

}  // namespace lb::cuda::logic
