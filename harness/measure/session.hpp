#pragma once
// A measuring session: the plan's points not yet in the results file, measured through the run
// loop and appended as each ends (an out-of-memory sweep's larger batches recorded without
// running), then the file finished. Each step returns what happened; bench/cmd_run.cpp prints it.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure/oom_sweep.hpp"
#include "harness/measure/point_measurement.hpp"
#include "harness/measure/progress.hpp"
#include "harness/measure/run_loop.hpp"
#include "harness/results/aggregate.hpp"
#include "harness/results/results_file.hpp"

namespace lb {

struct SessionConfig {
  MeasureConfig measuring;
  std::vector<std::string> benchmark_args;  // --benchmark_* flags for Google Benchmark
  Progress::Mode progress = Progress::Mode::quiet;
  // Peaks and memory per device id, for the model sums (results/aggregate.hpp).
  std::map<std::string, DeviceLimits> device_limits;
  // Each measured point's time bound in seconds (harness/measure/point_watchdog.hpp); 0: none. A
  // point stuck past the bound and its grace is recorded failed, the file finished "interrupted",
  // and the process ends with `stuck_point_exit_code`.
  double point_time_bound_s = 0;
  int stuck_point_exit_code = 1;
};

// What the session finds before measuring: the points a resumed file holds, the points to
// measure, and the points each keyed device's backend refused, counted per reason (recorded as
// unsupported in the first round, without a progress line each).
struct SessionStart {
  std::size_t resumed = 0;
  int to_run = 0;
  int rounds = 1;
  std::map<std::string, std::map<std::string, int>> refusals;
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

class Session {
 public:
  using BackendFor = std::function<Backend&(const PlannedPoint&)>;
  // Reads the points `writer` holds and asks each other point's backend whether it can run it.
  Session(const Plan& plan, const std::vector<Model>& models, ResultsWriter& writer,
          const SessionConfig& config, BackendFor backend_for);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const SessionStart& start() const { return start_; }
  // Measures the points the file lacks, on the backend `backend_for` gives each, appending them
  // as they end; records context.time_split and sums the models. Stops between points on a
  // signal or a write error.
  SessionOutcome measure();
  // Finishes the file with `outcome`'s model sums, "complete" or "interrupted"; returns the
  // disk's refusal, if any.
  std::optional<std::string> finish(const SessionOutcome& outcome);

 private:
  std::optional<Point> recorded_without_running(const PlannedPoint& pp) const;
  void record(const PlannedPoint& pp, const Point& p, Progress& progress, SessionOutcome& outcome);

  const Plan& plan_;
  const std::vector<Model>& models_;
  ResultsWriter& writer_;
  const SessionConfig& config_;
  std::map<std::string, Point> already_;  // in the file before the session: not measured again
  std::map<std::string, Point> refused_;  // refused by their backend, before the first round
  OomSweep sweep_;
  SessionStart start_;
  RunLoop loop_;
};

}  // namespace lb
