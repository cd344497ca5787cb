#pragma once
// The measurement of one planned point, end to end: problem -> support check -> prepare
// (allocation, inputs, algorithm choice; never timed) -> samples under the stopping rule ->
// validation against the double-precision reference -> a results Point. And the run loop that
// drives the points through Google Benchmark, one registered benchmark per point.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.hpp"
#include "harness/measure/point_watchdog.hpp"
#include "harness/measure/rounds.hpp"
#include "harness/plan/plan.hpp"
#include "harness/results/point.hpp"
#include "harness/stats.hpp"

namespace lb {

struct RunnerConfig {
  Sampler sampler;
  CaseOptions case_options;
  std::uint64_t seed = 42;
  int rounds = 1;                // visits of every point (harness/measure/rounds.hpp)
  ExtraRoundsRule extra_rounds;  // further visits of the points whose rounds disagree
};

// Wall time spent per phase of the points' measurement, summed over the run: where a run's
// time goes (recorded in the results file's context.time_split and printed at the end).
struct PhaseSeconds {
  double refusal = 0;     // asking the backend whether it can run the point
  double inputs = 0;      // generating the random inputs
  double prepare = 0;     // allocation, buffer fill, algorithm choice (autotune)
  double sampling = 0;    // warm-up and timed samples
  double validation = 0;  // the reference computation and comparison
};

// The point's static description (what was asked and its accounting), status ok.
Point describe_point(const PlannedPoint& planned, const Problem& problem);

// The point recorded as unsupported when its backend says it cannot run it (asked without
// preparing anything) or its indexing would overflow; empty when it can run. `spent` gets the
// time of the question.
std::optional<Point> refused_point(const PlannedPoint& planned, const Backend& backend,
                                   const RunnerConfig& config, PhaseSeconds* spent = nullptr);

// Measures one point. Never throws for what a point can run into: unsupported precisions,
// out-of-memory, library errors and wrong answers are recorded in the point's status.
// `measure` wraps the sampling so the caller can put it inside a Google Benchmark loop.
using MeasureFn = std::function<SampleStats(Case&)>;
Point measure_point(const PlannedPoint& planned, Backend& backend, const RunnerConfig& config,
                    const MeasureFn& measure, PhaseSeconds* spent = nullptr);
// A later round of a point whose first round was ok: prepared again asking for the first
// round's implementation by name (CaseOptions::implementation: no candidates timed again where
// the backend can pick by name), sampled, not validated again. Its samples count only when the same
// implementation ran; otherwise, or when it fails where the first round did not, `not_counted` says
// why (the point's notes keep it) and the first rounds' figures stand.
struct RoundOutcome {
  std::optional<SampleStats> stats;
  std::string not_counted;
};
RoundOutcome measure_again(const PlannedPoint& planned, Backend& backend,
                           const RunnerConfig& config, const Point& first, const MeasureFn& measure,
                           PhaseSeconds* spent = nullptr);
// The first round's point with the rounds combined: the median of the rounds' medians and its
// rates, the other sample figures of the round nearest it, and the rounds' record (timing's
// rounds, round_medians_ms, best_round: that nearest round, round_spread).
Point with_rounds(const Point& first, const std::vector<SampleStats>& rounds);
// The sampler a point on `device` measures with: the configured one, plus the pre-emption check
// with the backend's compute threads (its "threads" fact) on the CPU.
Sampler sampler_for(const Sampler& sampler, const std::string& device, const Backend& backend);
// The plain measurement: the config's sampler over Case::run_timed, checking `watchdog` (when not
// null) before each run, so that a point past its time bound stops between samples.
// `point_name` goes to Case::begin_samples.
MeasureFn sampler_measure(const Sampler& sampler, const PointWatchdog* watchdog = nullptr,
                          const std::string& point_name = "");

// Runs points in order through Google Benchmark (each registered at run time with manual
// time = the median of its samples), calling `on_point` after each. `backend_for` gives the
// backend of a point's device and backend name. Stops early, between points, once `stop` is set.
// `benchmark_args` are the --benchmark_* flags to pass on (filter, out, format).
// With config.rounds > 1 the points are visited again in order, round after round; a point ok
// in the first round is measured again (measure_again) and `on_point` gets it again with its
// rounds combined (with_rounds), so the caller records the better figure as it comes. Then,
// while config.extra_rounds allows, further passes measure again only the points whose rounds
// disagree (needs_extra_round). Google Benchmark's --benchmark_out file is written in the last
// pass, with each point's combined figure.
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
  PhaseSeconds spent;  // filled as the points run
  int round = 0;       // the round running (1-based), for on_point's caller

  void run(const std::vector<PlannedPoint>& points, std::vector<std::string> benchmark_args);
};

}  // namespace lb
