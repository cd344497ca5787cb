#pragma once
// What a device's own counters said about a point's timed samples: clocks, board power, energy
// and why the clock was held down (NVML on a GPU). Each figure is optional: the device or its
// library may not give it, and `absent` says why. Written as a point's "telemetry" object
// (reports/results-schema.md).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lb {

struct DeviceTelemetry {
  std::string source;        // "nvml"
  std::int64_t samples = 0;  // timed samples while NVML was read between them
  std::optional<double> sm_clock_min_mhz, sm_clock_median_mhz;
  std::optional<double> memory_clock_min_mhz, memory_clock_median_mhz;
  std::optional<double> power_median_w;
  // Over the load window after the samples, the operation back to back: the energy, how it was
  // found ("energy_counter" or "power_readings"; files before the load window also hold
  // "power_integrated") and the window's time; energy_j / window_s is the load's power.
  std::optional<double> energy_j;
  std::string energy_method;
  double window_s = 0;
  std::vector<std::string> clock_event_reasons;  // every reason seen, by name
  std::int64_t throttled_samples = 0;            // read while a power or thermal cap held the clock
  std::int64_t retaken_samples = 0;              // throttled samples --discard-throttled re-took
  // Samples a cap throttled are among the point's: always without --discard-throttled, and with
  // it when it could not re-take them all.
  bool throttled = false;
  bool device_lost = false;
  std::map<std::string, std::string> absent;  // field -> why it has no value
};

// Records how many throttled samples the sampler re-took and flags the point `throttled` where
// kept samples were (more throttled than re-taken) or the sampler gave up re-taking them.
void record_retakes(DeviceTelemetry& telemetry, std::int64_t retaken_samples, bool sampler_gave_up);

// The energy of one run: the windows' mean power times the run's time (`run_s`, the median);
// empty without an energy figure.
std::optional<double> joules_per_run(const DeviceTelemetry& telemetry, double run_s);

}  // namespace lb
