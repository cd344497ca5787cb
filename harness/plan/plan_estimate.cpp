#include "harness/plan/plan_estimate.hpp"

#include <algorithm>

#include "harness/results/point.hpp"

namespace lb {

namespace {
// Derived from two quick runs, 2 rounds, on the quiet 2-core test machine (Xeon with AVX-512 and
// a 480 MiB L3, 2 threads, cold caches, load average under 2), from their context.time_split:
// - with --algo heuristic (no candidates timed): prepare 74.2 s and inputs 9.2 s over 568 visits
//   (284 timed points x 2 rounds), 0.15 s a visit: the buffers, inputs and primitive a round
//   prepares again;
// - with autotune (the default): prepare 94.0 s, inputs 8.4 s and validation 2.5 s, 104.9 s, of
//   which 568 x 0.147 s are the visits and the remaining 21.4 s, 0.08 s a point, what only the
//   first visit does (autotune's candidates, validation). That run took 198 s wall; this
//   formula gives 193 s.
constexpr double measured_setup_per_visit_s = 0.15;
constexpr double measured_first_visit_s = 0.08;
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
                          "points 0 (asked of the CPU backends); a GPU's points are planned only "
                          "when the run would measure on it (the doctor finds it usable, or "
                          "--assume-usable-gpu) and counted runnable"},
          {"devices", devices}};
}

}  // namespace lb
