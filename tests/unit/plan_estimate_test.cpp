#include "harness/plan/plan_estimate.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

Plan plan_of(int cpu_points, int gpu_points) {
  Plan plan;
  for (int i = 0; i < cpu_points; ++i) plan.points.push_back({.batch = i + 1, .device = "cpu"});
  for (int i = 0; i < gpu_points; ++i) plan.points.push_back({.device = "gpu:0", .is_gpu = true});
  return plan;
}

// The formula on a tiny workload: per runnable point rounds x (cap + warm-up + set-up per
// visit) + first visit; a refused point adds nothing.
TEST(PlanEstimate, RoundsOfCapWarmupAndSetupPerRunnablePoint) {
  const EstimateRule rule{.max_time_per_point_s = 0.5, .rounds = 2, .warmup_s = 0.05};
  const double per_point = 2 * (0.5 + 0.05 + setup_per_visit_s()) + first_visit_s();
  // Of 3 CPU points, batch 2 is refused; the 5 GPU points all run.
  const auto e = estimate_plan(plan_of(3, 5), rule,
                               [](const PlannedPoint& p) { return !p.is_gpu && p.batch == 2; });
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at("cpu").points, 3);
  EXPECT_EQ(e.at("cpu").refused, 1);
  EXPECT_DOUBLE_EQ(e.at("cpu").seconds, 2 * per_point);
  EXPECT_EQ(e.at("gpu:0").points, 5);
  EXPECT_EQ(e.at("gpu:0").refused, 0);
  EXPECT_DOUBLE_EQ(e.at("gpu:0").seconds, 5 * per_point);
}

TEST(PlanEstimate, TheSetupCostsAreMeasuredOnes) {
  // Stated in plan_estimate.cpp from a run's time split: positive, and under a second a visit.
  EXPECT_GT(setup_per_visit_s(), 0);
  EXPECT_LT(setup_per_visit_s(), 1);
  EXPECT_GE(first_visit_s(), 0);
  EXPECT_LT(first_visit_s(), 1);
}

TEST(PlanEstimate, WithoutARefusalEveryPointRuns) {
  const EstimateRule rule{.max_time_per_point_s = 1.0, .rounds = 1, .warmup_s = 0};
  const auto e = estimate_plan(plan_of(4, 0), rule);
  EXPECT_EQ(e.at("cpu").refused, 0);
  EXPECT_DOUBLE_EQ(e.at("cpu").seconds, 4 * (1.0 + setup_per_visit_s() + first_visit_s()));
}

TEST(PlanEstimate, JsonTotalsTheDevices) {
  const EstimateRule rule{.max_time_per_point_s = 0.5, .rounds = 2, .warmup_s = 0.05};
  const auto per_device =
      estimate_plan(plan_of(3, 5), rule, [](const PlannedPoint& p) { return p.batch == 2; });
  const auto j = estimate_json(per_device, rule);
  EXPECT_EQ(j.at("points"), 8);
  EXPECT_EQ(j.at("refused_points"), 1);
  EXPECT_DOUBLE_EQ(j.at("estimated_seconds").get<double>(),
                   per_device.at("cpu").seconds + per_device.at("gpu:0").seconds);
  EXPECT_DOUBLE_EQ(j.at("max_time_per_point_s").get<double>(), 0.5);
  EXPECT_EQ(j.at("rounds"), 2);
  EXPECT_EQ(j.at("devices").at("gpu:0").at("points"), 5);
  EXPECT_EQ(j.at("devices").at("cpu").at("refused_points"), 1);
}

TEST(PlanEstimate, AnEmptyPlanTakesNoTime) {
  const auto j = estimate_json(estimate_plan(Plan{}, EstimateRule{}), EstimateRule{});
  EXPECT_EQ(j.at("points"), 0);
  EXPECT_TRUE(j.at("devices").empty());
}

}  // namespace
}  // namespace lb
