#include "harness/api/telemetry.hpp"

namespace lb {

void record_retakes(DeviceTelemetry& telemetry, std::int64_t retaken_samples,
                    bool sampler_gave_up) {
  telemetry.retaken_samples = retaken_samples;
  telemetry.throttled = sampler_gave_up || telemetry.throttled_samples > retaken_samples;
}

std::optional<double> joules_per_run(const DeviceTelemetry& telemetry, double run_s) {
  if (!telemetry.energy_j || telemetry.window_s <= 0 || run_s <= 0) return std::nullopt;
  return *telemetry.energy_j / telemetry.window_s * run_s;
}

}  // namespace lb
