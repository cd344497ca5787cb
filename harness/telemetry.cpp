#include "harness/telemetry.hpp"

namespace lb {

std::optional<double> joules_per_run(const DeviceTelemetry& telemetry, double run_s) {
  if (!telemetry.energy_j || telemetry.window_s <= 0 || run_s <= 0) return std::nullopt;
  return *telemetry.energy_j / telemetry.window_s * run_s;
}

}  // namespace lb
