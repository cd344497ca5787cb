#pragma once
// One planned point, end to end: support check -> prepare (allocation, inputs, algorithm choice;
// never timed) -> samples -> validation against the double-precision reference -> a results
// Point. No Google Benchmark here: the run loop (run_loop.hpp) hands it the figures.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/measure/point_watchdog.hpp"
#include "harness/measure/rounds.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/plan/plan.hpp"
#include "harness/results/point.hpp"

namespace lb {

// How every point of a run is measured: its sampling, its cases' options, the inputs' seed and
// the rounds.
struct MeasureConfig {
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
                                   const MeasureConfig& config, PhaseSeconds* spent = nullptr);

// How a point's samples are taken: `sampler` over Case::run_timed, checking `watchdog` (when
// not null) before each run, so that a point past its time bound stops between samples.
// `point_name` goes to Case::begin_samples.
struct PointSampling {
  Sampler sampler;
  const PointWatchdog* watchdog = nullptr;
  std::string point_name;

  SampleStats take(Case& c) const;
};
// The sampler a point on `device` measures with: the configured one, plus the pre-emption check
// with the backend's compute threads on the CPU.
Sampler sampler_for(const Sampler& sampler, const std::string& device, const Backend& backend);

// Measures one point. Never throws for what a point can run into: unsupported precisions,
// out-of-memory, library errors and wrong answers are recorded in the point's status.
Point measure_point(const PlannedPoint& planned, Backend& backend, const MeasureConfig& config,
                    const PointSampling& sampling, PhaseSeconds* spent = nullptr);
// A later round of a point ok in its first: prepared again asking for the first round's
// implementation by name, sampled, not validated again. Only when that implementation ran do its
// samples count; else `not_counted` says why (the point's notes keep it).
struct RoundOutcome {
  std::optional<SampleStats> stats;
  std::string not_counted;
};
RoundOutcome measure_again(const PlannedPoint& planned, Backend& backend,
                           const MeasureConfig& config, const Point& first,
                           const PointSampling& sampling, PhaseSeconds* spent = nullptr);
// The first round's point with the rounds combined: the median of the rounds' medians and its
// rates, the other sample figures of the round nearest it, and the rounds' record (timing's
// rounds, round_medians_ms, best_round: that nearest round, round_spread).
Point with_rounds(const Point& first, const std::vector<SampleStats>& rounds);

}  // namespace lb
