#include "harness/plan/plan_estimate.hpp"

#include <algorithm>

#include "harness/results/point.hpp"

namespace lb {

namespace {
// Derived from measurements on the 2-core test machine (Xeon with AVX-512 and a 480 MiB L3,
// 2 threads, cold caches):
// - A quiet one-round quick run before rounds (284 timed points, 437 s wall): about 260 s of
//   sampling at the 1 s cap and 17 s of warm-up leave 0.55 s of set-up and validation a point.
// - Its split between what a round repeats and what only the first round does, from two runs of
//   ResNet-50 batch 1 FP32 on the loaded machine: with --algo heuristic preparation took 0.47 s
//   a point, with autotune 1.06 s; so 45% of the set-up is the buffers (repeated each round) and
//   55% the autotune's candidates (once, when the library's first choice wins, as it mostly did).
constexpr double measured_setup_per_visit_s = 0.25;
constexpr double measured_first_visit_s = 0.30;
}  // namespace

double setup_per_visit_s() { return measured_setup_per_visit_s; }
double first_visit_s() { return measured_first_visit_s; }

std::map<std::string, PlanEstimate> estimate_plan(
    const Plan& plan, const EstimateRule& rule,
    const std::function<bool(const PlannedPoint&)>& refused) {
  const double per_visit = rule.max_time_per_point_s + rule.warmup_s + setup_per_visit_s();
  const double per_point = std::max(1, rule.rounds) * per_visit + first_visit_s();
  std::map<std::string, PlanEstimate> per_device;
  for (const auto& point : plan.points) {
    PlanEstimate& e = per_device[keyed_device(point.device, point.backend)];
    ++e.points;
    if (refused && refused(point))
      ++e.refused;
    else
      e.seconds += per_point;
  }
  return per_device;
}

nlohmann::json estimate_json(const std::map<std::string, PlanEstimate>& per_device,
                             const EstimateRule& rule) {
  nlohmann::json devices = nlohmann::json::object();
  PlanEstimate total;
  for (const auto& [id, e] : per_device) {
    devices[id] = {
        {"points", e.points}, {"refused_points", e.refused}, {"estimated_seconds", e.seconds}};
    total.points += e.points;
    total.refused += e.refused;
    total.seconds += e.seconds;
  }
  return {{"points", total.points},
          {"refused_points", total.refused},
          {"estimated_seconds", total.seconds},
          {"max_time_per_point_s", rule.max_time_per_point_s},
          {"rounds", rule.rounds},
          {"setup_per_visit_s", setup_per_visit_s()},
          {"first_visit_s", first_visit_s()},
          {"formula", "per point the backend can run: rounds x (max_time_per_point_s + warm-up " +
                          std::to_string(rule.warmup_s).substr(0, 4) +
                          " s + setup_per_visit_s) + first_visit_s (validation, autotune); refused "
                          "points 0 (asked of the CPU backends; GPU points counted as runnable)"},
          {"devices", devices}};
}

}  // namespace lb
