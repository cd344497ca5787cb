#pragma once
// The run loop: the points through Google Benchmark, one benchmark registered per point at run
// time, one pass per round. Each benchmark measures its point (point_measurement.hpp) and hands
// Google Benchmark the median as its manual time.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/measure/point_measurement.hpp"
#include "harness/measure/point_watchdog.hpp"
#include "harness/plan/plan.hpp"
#include "harness/results/point.hpp"

namespace lb {

// Visits the points in order, round after round (config.rounds), then again those whose rounds
// disagree while config.extra_rounds allows; `on_point` gets each visit's record, rounds combined,
// so the caller keeps the latest. The --benchmark_out file is written by the last pass.
struct RunLoop {
  MeasureConfig config;
  std::function<Backend&(const PlannedPoint&)> backend_for;
  std::function<void(const PlannedPoint&, const Point&)> on_point;
  // Called before a point runs; returning a Point records it without running (resume, sweeps).
  std::function<std::optional<Point>(const PlannedPoint&)> pre_empt;
  // Checked before each point; once true, the rest are skipped (Ctrl-C, a results file that
  // can no longer be written).
  std::function<bool()> stop;
  // Bounds each measured point's time, when not null.
  PointWatchdog* watchdog = nullptr;
  PhaseSeconds spent;  // filled as the points run
  int round = 0;       // the round running (1-based), for on_point's caller

  // `benchmark_args`: the --benchmark_* flags to pass on (filter, out, format).
  void run(const std::vector<PlannedPoint>& points, std::vector<std::string> benchmark_args);
};

}  // namespace lb
