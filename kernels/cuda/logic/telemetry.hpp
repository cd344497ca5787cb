#pragma once
// The summary of NVML's readings over a point's timed samples (no NVML call here): clock minimum
// and median, board power median, the clock-event reasons by name, which samples a power or
// thermal cap throttled, and the board's power under load for the point's energy.
#include <optional>
#include <string>
#include <vector>

#include "harness/api/telemetry.hpp"

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

// When a timed sample started and ended, on the readings' clock.
struct SampleSpan {
  double start_s = 0, end_s = 0;
};

// NVML is read between samples, not around each one: a reading costs host time in which the
// GPU idles, so a short point would get few samples. The next reading is due once the samples
// since the last one have run long enough that reading takes at most this share of the time.
inline constexpr double reading_time_share = 0.1;
bool reading_due(double now_s, double last_reading_end_s, double last_reading_cost_s);

// The names of the reasons set in `mask` ("sw_power_cap", ...), and "unknown_0x..." for bits
// nvml.h does not name.
std::vector<std::string> reason_names(unsigned long long mask);
// Whether `mask` has a power or thermal cap holding the clock down (software power cap,
// hardware slowdown, software or hardware thermal slowdown, hardware power brake). The
// applications-clocks, sync-boost and display reasons are settings, not caps; idle is no load.
bool cap_throttled(unsigned long long mask);
// Whether a cap showed in the readings around `span`: the last one at or before its start and
// every one from there to the first at or after its end (or the last reading, if none is yet).
bool span_throttled(const std::vector<NvmlReading>& readings, const SampleSpan& span);

// The board's power under load, from a window after the timed samples in which the operation
// ran back to back (the samples' own windows are mostly the host reading NVML while the GPU
// idles). The energy counter steps at NVML's own update rate, so the power is its rise between
// the first and the last step over the time between them, all of it under load (the first step
// comes after the window began). NVML is read about every `load_reading_interval_s` (launches
// are queued ahead, so the GPU does not wait for a reading), so a step is seen up to that late;
// the window ends once the counter stepped `load_counter_steps` times (a whole update period
// between them) at least `load_min_span_s` apart, which bounds that error to 5%, or after
// `load_window_max_s`, two of NVML's 1 s power averages (nvml.h, nvmlDeviceGetPowerUsage),
// whichever comes first.
inline constexpr int load_counter_steps = 2;
inline constexpr double load_reading_interval_s = 0.005;
inline constexpr double load_min_span_s = 20 * load_reading_interval_s;
inline constexpr double load_window_max_s = 2.0;
bool load_window_done(const std::vector<NvmlReading>& load);

// `watts` is empty when neither the counter nor the power readings gave a plausible figure,
// and `why_not` says why; `method` is "energy_counter" or, where the counter is missing or
// stepped too rarely, "power_readings" (the median board power over the window's second half).
// Power not above the board's `idle_w` (read before layerbench ran anything on it) while the
// GPU ran back to back is not a reading of that load, and is refused.
struct LoadPower {
  std::optional<double> watts;
  double seconds = 0;  // the time the figure is over
  std::string method, why_not;
  int counter_steps = 0;
  // The power readings' figure beside the counter's, to check one against the other.
  std::optional<double> readings_watts;
};
LoadPower load_power(const std::vector<NvmlReading>& load, std::optional<double> idle_w);
// The point's notes on its load window ("load_window", "load_power_readings_w"); none where no
// window ran.
std::vector<std::pair<std::string, std::string>> load_notes(const LoadPower& load);

// The point's telemetry: clocks, power and reasons over the sampling's `readings`, throttling
// per sample span, energy from the load window (energy_j = watts x seconds over `load`).
// `absent` (field -> why) is the reader's record of what NVML did not give; a field with no
// reading at all gets "no reading" there if not already.
DeviceTelemetry summarize_telemetry(const std::vector<NvmlReading>& readings,
                                    const std::vector<SampleSpan>& samples, const LoadPower& load,
                                    std::map<std::string, std::string> absent, bool device_lost);

}  // namespace lb::cuda::logic
