#pragma once
// A measuring session: the plan's points not yet in the results file, measured in order through
// the run loop and appended to the file as each ends; during an out-of-memory sweep the larger
// batches are recorded without running; then the model sums, the file closed, and an outcome
// for the caller to print. The command line (bench/cmd_run.cpp) only sets it up and reports.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure/oom_sweep.hpp"
#include "harness/measure/progress.hpp"
#include "harness/measure/runner.hpp"
#include "harness/results/aggregate.hpp"
#include "harness/results/results_file.hpp"

namespace lb {

struct SessionConfig {
  RunnerConfig runner;
  std::vector<std::string> benchmark_args;  // --benchmark_* flags for Google Benchmark
  Progress::Mode progress = Progress::Mode::quiet;
  // Peaks and memory per device id, for the model sums (results/aggregate.hpp).
  std::map<std::string, DeviceLimits> device_limits;
  // Called once the points are measured, before the file is finished: what the CLI records of
  // the machine at the end (its state after the run). May be empty.
  std::function<void(ResultsWriter&)> before_finish;
  // Each measured point's time bound in seconds (harness/measure/point_watchdog.hpp); 0: none. A
  // point stuck past the bound and its grace is recorded failed, the file finished "interrupted",
  // and the process ends with `stuck_point_exit_code`.
  double point_time_bound_s = 0;
  int stuck_point_exit_code = 1;
};

struct SessionOutcome {
  Aggregation results;
  int failed = 0;            // points whose status is failed, resumed ones included
  bool interrupted = false;  // stopped by a signal: the file says "interrupted"
  // The disk refused the results file: the points before it are in the file and its journal.
  std::optional<std::string> write_error;
  PhaseSeconds spent;  // where the measuring time went
  double wall_s = 0;   // the measuring loop's wall time
};

// The run's time by phase, as context.time_split records it (reports/results-schema.md) and as
// the one line `run` prints at the end.
nlohmann::json time_split_json(const PhaseSeconds& spent, double wall_s, int rounds);
std::string time_split_text(const PhaseSeconds& spent, double wall_s);

// Measures the plan's points that `writer` does not hold yet, on the backend `backend_for`
// gives each, and finishes the file. Stops between points on a signal or a write error.
SessionOutcome run_session(const Plan& plan, const std::vector<Model>& models,
                           ResultsWriter& writer, const SessionConfig& config,
                           const std::function<Backend&(const PlannedPoint&)>& backend_for);

}  // namespace lb
