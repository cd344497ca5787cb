#pragma once
// How long a plan may take, for `layerbench run --dry-run` and the Slurm fleet's time limits:
// per point the backend can run, rounds x (cap + warm-up + set-up per visit) x (1 + extra) +
// first visit. Pure logic; the terms and the measured set-up costs: docs/measuring.md.
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/plan/plan.hpp"

namespace lb {

struct PlanEstimate {
  int points = 0;
  int refused = 0;  // of `points`: the backend cannot run them
  double seconds = 0;
};

struct EstimateRule {
  double max_time_per_point_s = 1.0;
  int rounds = 1;
  double warmup_s = 0.05;            // Sampler::warmup_min_s
  double extra_rounds_fraction = 0;  // ExtraRoundsRule::budget_fraction; used when rounds >= 2
};

// Per device id and backend, as point keys name them ("cpu", "cpu@openblas", "gpu:0").
// `refused` says whether a point's backend cannot run it (empty: every point runs).
std::map<std::string, PlanEstimate> estimate_plan(
    const Plan& plan, const EstimateRule& rule,
    const std::function<bool(const PlannedPoint&)>& refused = {});

// {"points", "refused_points", "estimated_seconds", "max_time_per_point_s", "rounds", "formula",
//  "devices": {keyed device: {"points", "refused_points", "estimated_seconds"}}}
nlohmann::json estimate_json(const std::map<std::string, PlanEstimate>& per_device,
                             const EstimateRule& rule);

// The set-up seconds of a point the estimate assumes: per visit (every round) and once.
double setup_per_visit_s();
double first_visit_s();

}  // namespace lb
