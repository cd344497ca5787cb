#include "harness/plan/plan_estimate.hpp"

#include "harness/results/point.hpp"

namespace lb {

namespace {
// Warm-up and sampling each run up to the cap (harness/stats.cpp, Sampler::measure).
constexpr double capped_phases_per_point = 2;
}  // namespace

std::map<std::string, PlanEstimate> estimate_plan(const Plan& plan, double max_time_per_point_s) {
  std::map<std::string, PlanEstimate> per_device;
  for (const auto& point : plan.points) {
    PlanEstimate& e = per_device[keyed_device(point.device, point.backend)];
    ++e.points;
    e.seconds += capped_phases_per_point * max_time_per_point_s;
  }
  return per_device;
}

nlohmann::json estimate_json(const std::map<std::string, PlanEstimate>& per_device,
                             double max_time_per_point_s) {
  nlohmann::json devices = nlohmann::json::object();
  PlanEstimate total;
  for (const auto& [id, e] : per_device) {
    devices[id] = {{"points", e.points}, {"estimated_seconds", e.seconds}};
    total.points += e.points;
    total.seconds += e.seconds;
  }
  return {{"points", total.points},
          {"estimated_seconds", total.seconds},
          {"max_time_per_point_s", max_time_per_point_s},
          {"formula",
           "points x 2 x max_time_per_point_s (warm-up and sampling each stop past the "
           "cap); set-up and validation not included"},
          {"devices", devices}};
}

}  // namespace lb
