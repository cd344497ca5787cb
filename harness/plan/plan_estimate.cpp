#include "harness/plan/plan_estimate.hpp"

#include <algorithm>

#include "harness/plan/point_identity.hpp"

namespace lb {

namespace {
// Derived from a quick run's context.time_split on the 2-core test machine: the run, the
// formula and how close it came are in docs/measuring.md, "Time estimates".
constexpr double measured_setup_per_visit_s = 0.013;
constexpr double measured_first_visit_s = 0.083;
}  // namespace

double setup_per_visit_s() { return measured_setup_per_visit_s; }
double first_visit_s() { return measured_first_visit_s; }

std::map<std::string, PlanEstimate> estimate_plan(
    const Plan& plan, const EstimateRule& rule,
    const std::function<bool(const PlannedPoint&)>& refused) {
  const double per_visit = rule.max_time_per_point_s + rule.warmup_s + setup_per_visit_s();
  const double extra = rule.rounds >= 2 ? 1 + rule.extra_rounds_fraction : 1;
  const double per_point = std::max(1, rule.rounds) * per_visit * extra + first_visit_s();
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
          {"extra_rounds_fraction", rule.rounds >= 2 ? rule.extra_rounds_fraction : 0.0},
          {"formula", "per point the backend can run: rounds x (max_time_per_point_s + warm-up " +
                          std::to_string(rule.warmup_s).substr(0, 4) +
                          " s + setup_per_visit_s) x (1 + extra_rounds_fraction) + first_visit_s "
                          "(validation, autotune); refused "
                          "points 0 (asked of the CPU backends); a GPU's points are planned only "
                          "when the run would measure on it (the doctor finds it usable, or "
                          "--assume-usable-gpu) and counted runnable"},
          {"devices", devices}};
}

}  // namespace lb
