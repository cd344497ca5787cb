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
  std::int64_t samples = 0;  // timed samples with a reading before and after them
  std::optional<double> sm_clock_min_mhz, sm_clock_median_mhz;
  std::optional<double> memory_clock_min_mhz, memory_clock_median_mhz;
  std::optional<double> power_median_w;
  // Over the samples' reading windows (read before each sample's enqueue, after its stop event):
  // the energy, how it was found ("energy_counter" or "power_integrated") and the windows' time.
  std::optional<double> energy_j;
  std::string energy_method;
  double window_s = 0;
  std::vector<std::string> clock_event_reasons;  // every reason seen, by name
  std::int64_t throttled_samples = 0;            // read while a power or thermal cap held the clock
  std::int64_t retaken_samples = 0;              // throttled samples --discard-throttled re-took
  bool throttled = false;  // --discard-throttled could not get enough unthrottled samples
  bool device_lost = false;
  std::map<std::string, std::string> absent;  // field -> why it has no value
};

// The energy of one run: the windows' mean power times the run's time (`run_s`, the median);
// empty without an energy figure.
std::optional<double> joules_per_run(const DeviceTelemetry& telemetry, double run_s);

}  // namespace lb
