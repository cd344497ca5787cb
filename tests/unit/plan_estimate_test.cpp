#include "harness/plan/plan_estimate.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bench/backend_registry.hpp"
#include "bench/device_choice.hpp"
#include "harness/model/model_file.hpp"

namespace lb {
namespace {

Plan plan_of(int cpu_points, int gpu_points) {
  Plan plan;
  for (int i = 0; i < cpu_points; ++i) plan.points.push_back({.batch = i + 1, .device = "cpu"});
  for (int i = 0; i < gpu_points; ++i)
    plan.points.push_back({.device = "gpu:0", .accelerator = true});
  return plan;
}

// The formula on the tiny test model: per runnable point rounds x (cap + warm-up + set-up per
// visit) + first visit; a refused point adds nothing.
TEST(PlanEstimate, RoundsOfCapWarmupAndSetupPerRunnablePoint) {
  const EstimateRule rule{.max_time_per_point_s = 0.5, .rounds = 2, .warmup_s = 0.05};
  const double per_point = 2 * (0.5 + 0.05 + setup_per_visit_s()) + first_visit_s();
  // Of 3 CPU points, batch 2 is refused; the 5 GPU points all run.
  const auto e = estimate_plan(
      plan_of(3, 5), rule, [](const PlannedPoint& p) { return !p.accelerator && p.batch == 2; });
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at("cpu").points, 3);
  EXPECT_EQ(e.at("cpu").refused, 1);
  EXPECT_DOUBLE_EQ(e.at("cpu").seconds, 2 * per_point);
  EXPECT_EQ(e.at("gpu:0").points, 5);
  EXPECT_EQ(e.at("gpu:0").refused, 0);
  EXPECT_DOUBLE_EQ(e.at("gpu:0").seconds, 5 * per_point);
}

// Extra rounds may add their budget's fraction of the rounds' time; one round has none.
TEST(PlanEstimate, ExtraRoundsAddTheirBudgetWhenThereAreTwoRoundsOrMore) {
  EstimateRule rule{
      .max_time_per_point_s = 0.5, .rounds = 2, .warmup_s = 0.05, .extra_rounds_fraction = 0.1};
  const double visit = 0.5 + 0.05 + setup_per_visit_s();
  EXPECT_DOUBLE_EQ(estimate_plan(plan_of(1, 0), rule).at("cpu").seconds,
                   2 * visit * 1.1 + first_visit_s());
  EXPECT_DOUBLE_EQ(estimate_json(estimate_plan(plan_of(1, 0), rule), rule)
                       .at("extra_rounds_fraction")
                       .get<double>(),
                   0.1);
  rule.rounds = 1;
  EXPECT_DOUBLE_EQ(estimate_plan(plan_of(1, 0), rule).at("cpu").seconds, visit + first_visit_s());
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

// The dry run's devices come from the run's own choice (accelerators_to_run) given the GPU
// backends' verdict: where no GPU is usable, --device auto plans the CPU alone, as the run measures
// it, and a GPU asked for by name is planned nowhere and marked unusable (the run exits 1).
TEST(PlanEstimate, NoGpuPointIsPlannedWhereTheDoctorFindsNoUsableGpu) {
  const std::vector<cli::DeviceVerdict> no_gpu = {
      {"gpu", {}, "No usable GPU: NVIDIA driver not found", {}}};
  const auto& backends = backend_descriptors();
  const std::vector<Model> models = load_builtin_models();
  const EstimateRule rule{.max_time_per_point_s = 0.1, .rounds = 2, .warmup_s = 0.05};

  const cli::DeviceChoice automatic = cli::parse_device("auto");
  bool gpu_unusable = false;
  const std::vector<DeviceId> gpus =
      cli::accelerators_to_run(automatic, no_gpu, true, gpu_unusable);
  EXPECT_TRUE(gpus.empty());
  EXPECT_FALSE(gpu_unusable);
  const auto here =
      estimate_plan(expand_plan({}, models, cli::dry_run_targets(automatic, backends, gpus)), rule);
  ASSERT_FALSE(here.empty());
  for (const auto& [device, e] : here) EXPECT_EQ(device.rfind("cpu", 0), 0u) << device;

  // The same plan for a node whose GPU is usable adds gpu:0 (every GPU of auto) and its points.
  const std::vector<DeviceId> node_gpus =
      cli::accelerators_to_run(automatic, cli::assumed_usable(automatic), true, gpu_unusable);
  ASSERT_EQ(node_gpus.size(), 1u);
  EXPECT_EQ(to_string(node_gpus[0]), "gpu:0");
  const auto node = estimate_plan(
      expand_plan({}, models, cli::dry_run_targets(automatic, backends, node_gpus)), rule);
  const auto gpu = std::find_if(node.begin(), node.end(), [](const auto& entry) {
    return entry.first.rfind("gpu:0", 0) == 0;
  });
  ASSERT_NE(gpu, node.end());
  EXPECT_GT(gpu->second.seconds, 0);

  const cli::DeviceChoice named = cli::parse_device("gpu");
  gpu_unusable = false;
  EXPECT_TRUE(cli::accelerators_to_run(named, no_gpu, true, gpu_unusable).empty());
  EXPECT_TRUE(gpu_unusable);
  EXPECT_TRUE(cli::dry_run_targets(named, backends, {}).empty());
}

}  // namespace
}  // namespace lb
