#pragma once
// How long a plan may take, for `layerbench run --dry-run` and the Slurm fleet's time limits.
// Sampler::measure stops its warm-up and then its sampling each once it has run past the
// per-point cap (--max-time-per-point), so the timed part of a point takes about
// 2 x cap: estimated seconds = points x 2 x max_time_per_point_s. Set-up, algorithm choice
// and validation are outside that bound (a caller adds a margin); points that stop early on
// the noise target, or are refused (unsupported, oom), take less. Pure logic.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/plan/plan.hpp"

namespace lb {

struct PlanEstimate {
  int points = 0;
  double seconds = 0;
};

// Per device id and backend, as point keys name them ("cpu", "cpu@openblas", "gpu:0").
std::map<std::string, PlanEstimate> estimate_plan(const Plan& plan, double max_time_per_point_s);

// {"points", "estimated_seconds", "max_time_per_point_s", "formula",
//  "devices": {keyed device: {"points", "estimated_seconds"}}}
nlohmann::json estimate_json(const std::map<std::string, PlanEstimate>& per_device,
                             double max_time_per_point_s);

}  // namespace lb
