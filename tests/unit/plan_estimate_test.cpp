#include "harness/plan/plan_estimate.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

Plan plan_of(int cpu_points, int gpu_points) {
  Plan plan;
  for (int i = 0; i < cpu_points; ++i) plan.points.push_back({.device = "cpu"});
  for (int i = 0; i < gpu_points; ++i) plan.points.push_back({.device = "gpu:0", .is_gpu = true});
  return plan;
}

TEST(PlanEstimate, TwoCapsPerPointPerDevice) {
  // 3 CPU points and 5 GPU points at a 0.5 s cap: 3 s and 5 s.
  const auto e = estimate_plan(plan_of(3, 5), 0.5);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at("cpu").points, 3);
  EXPECT_DOUBLE_EQ(e.at("cpu").seconds, 3.0);
  EXPECT_EQ(e.at("gpu:0").points, 5);
  EXPECT_DOUBLE_EQ(e.at("gpu:0").seconds, 5.0);
}

TEST(PlanEstimate, JsonTotalsTheDevices) {
  const auto j = estimate_json(estimate_plan(plan_of(3, 5), 0.5), 0.5);
  EXPECT_EQ(j.at("points"), 8);
  EXPECT_DOUBLE_EQ(j.at("estimated_seconds").get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(j.at("max_time_per_point_s").get<double>(), 0.5);
  EXPECT_EQ(j.at("devices").at("gpu:0").at("points"), 5);
  EXPECT_DOUBLE_EQ(j.at("devices").at("cpu").at("estimated_seconds").get<double>(), 3.0);
}

TEST(PlanEstimate, AnEmptyPlanTakesNoTime) {
  const auto j = estimate_json(estimate_plan(Plan{}, 1.0), 1.0);
  EXPECT_EQ(j.at("points"), 0);
  EXPECT_TRUE(j.at("devices").empty());
}

}  // namespace
}  // namespace lb
