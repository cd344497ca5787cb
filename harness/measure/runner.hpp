#pragma once
// The measurement of one planned point, end to end: problem -> support check -> prepare
// (allocation, inputs, algorithm choice; never timed) -> samples under the stopping rule ->
// validation against the double-precision reference -> a results Point. And the run loop that
// drives the points through Google Benchmark, one registered benchmark per point.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/backend.hpp"
#include "harness/measure/point_watchdog.hpp"
#include "harness/plan/plan.hpp"
#include "harness/results/point.hpp"
#include "harness/stats.hpp"

namespace lb {

struct RunnerConfig {
  Sampler sampler;
  CaseOptions case_options;
  std::uint64_t seed = 42;
};

// The point's static description (what was asked and its accounting), status ok.
Point describe_point(const PlannedPoint& planned, const Problem& problem);

// Measures one point. Never throws for what a point can run into: unsupported precisions,
// out-of-memory, library errors and wrong answers are recorded in the point's status.
// `measure` wraps the sampling so the caller can put it inside a Google Benchmark loop.
using MeasureFn = std::function<SampleStats(Case&)>;
Point measure_point(const PlannedPoint& planned, Backend& backend, const RunnerConfig& config,
                    const MeasureFn& measure);
// The sampler a point on `device` measures with: the configured one, plus the pre-emption check
// with the backend's compute threads (its "threads" fact) on the CPU.
Sampler sampler_for(const Sampler& sampler, const std::string& device, const Backend& backend);
// The plain measurement: the config's sampler over Case::run_timed, checking `watchdog` (when not
// null) before each run, so that a point past its time bound stops between samples.
MeasureFn sampler_measure(const Sampler& sampler, const PointWatchdog* watchdog = nullptr);

// Runs points in order through Google Benchmark (each registered at run time with manual
// time = the median of its samples), calling `on_point` after each. `backend_for` gives the
// backend of a point's device and backend name. Stops early, between points, once `stop` is set.
// `benchmark_args` are the --benchmark_* flags to pass on (filter, out, format).
struct RunLoop {
  RunnerConfig config;
  std::function<Backend&(const PlannedPoint&)> backend_for;
  std::function<void(const PlannedPoint&, const Point&)> on_point;
  // Called before a point runs; returning a Point records it without running (resume, sweeps).
  std::function<std::optional<Point>(const PlannedPoint&)> pre_empt;
  // Checked before each point; once true, the rest are skipped (Ctrl-C, a results file that
  // can no longer be written).
  std::function<bool()> stop;
  // Bounds each measured point's time, when not null.
  PointWatchdog* watchdog = nullptr;

  void run(const std::vector<PlannedPoint>& points, std::vector<std::string> benchmark_args);
};

}  // namespace lb
