#pragma once
// Sustained mode for the peak GEMM: a GPU bursts at its boost clock until power or heat pull the
// clock down, so the GEMM runs until NVML's board power and SM clock settle, and both rates are
// reported: the burst (the first window's) and the sustained (the settled window's). Pure logic
// over the readings taken between runs; the loop that runs the GEMM is the CUDA side's.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/logic/telemetry.hpp"

namespace lb::cuda::logic {

// Settled: board power's and SM clock's medians over the last `window_s` of readings each within
// `tolerance` of the window before's; a window spans several of NVML's ~1 s power averages. The
// values are choices.
struct SettleCriterion {
  double window_s = 5;
  double tolerance = 0.02;
  double max_s = 120;
};

// The criterion for a point whose wall time is bounded at `point_bound_s` (--point-timeout; 0:
// none): the GEMM runs at most half the bound, so the warm-up, samples and validation keep the
// other half and the point watchdog never finds the sustained loop stuck.
SettleCriterion criterion_within(double point_bound_s);

// The GEMM is launched back to back between two readings for about reading_interval_s, ten
// readings per NVML power average of about a second (a choice), from 1 to 10000 launches given
// one launch's time (the warm-up's last run); the load window asks a shorter `interval_s`.
inline constexpr double reading_interval_s = 0.1;
int launches_per_reading(double one_launch_s, double interval_s = reading_interval_s);

enum class SettleState {
  running,          // not settled yet, within the bound: keep going
  settled,          // the criterion holds at the last reading
  bound_reached,    // max_s passed without settling: the last window's figures are reported
  counter_missing,  // a reading lacks board power or SM clock: no criterion can be judged
};

struct SettleVerdict {
  SettleState state = SettleState::running;
  std::optional<double> power_w, sm_mhz;  // the last window's medians, once it is complete
  std::string why;                        // counter_missing: which, and at which reading
};

// The verdict over `series` (readings in time order, the first at the run's start).
SettleVerdict settle(const std::vector<NvmlReading>& series, const SettleCriterion& criterion);

// One GEMM run in the series: when it ended (the same clock as the readings) and its time.
struct TimedRun {
  double end_s = 0, seconds = 0;
};

// The rates of the first and the last `window_s` of runs, in TFLOP/s for `gflop` of work per
// run: the total work over the summed run times of each window. Empty without runs in one.
struct BurstAndSustained {
  std::optional<double> burst_tflops, sustained_tflops;
};
BurstAndSustained burst_and_sustained(const std::vector<TimedRun>& runs, double gflop,
                                      double window_s);

// The point's notes: "sustained" (settled, not settled within the bound, or the missing counter),
// "sustained_s" (how long the GEMM ran), and where known "burst_tflops", "sustained_tflops",
// "sustained_power_w" and "sustained_sm_mhz".
std::vector<std::pair<std::string, std::string>> sustained_notes(const SettleVerdict& verdict,
                                                                 const BurstAndSustained& rates,
                                                                 const SettleCriterion& criterion,
                                                                 double seconds);

}  // namespace lb::cuda::logic
