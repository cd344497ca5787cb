// The end-of-run table on hand-made model results; every images/s figure is test data.
#include "harness/results/summary.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

ModelResult ok(const std::string& model, PassSet pass, const std::string& device,
               const std::string& precision, int batch, double images_per_s) {
  ModelResult r;
  r.model = model;
  r.pass = pass;
  r.device = device;
  r.precision = precision;
  r.batch = batch;
  r.images_per_s = images_per_s;
  r.time_ms = batch / images_per_s * 1e3;
  r.uncertainty = 0.02;
  return r;
}

ModelResult not_ok(const std::string& model, PassSet pass, const std::string& device,
                   const std::string& precision, int batch, const std::string& status) {
  ModelResult r = ok(model, pass, device, precision, batch, 1);
  r.status = status;
  r.images_per_s.reset();
  r.time_ms.reset();
  r.uncertainty.reset();
  return r;
}

TEST(Summary, BestBatchPerConfigurationWithSpeedups) {
  const std::vector<ModelResult> results = {
      ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10),
      ok("resnet50", PassSet::fwd, "cpu", "fp32", 8, 20),
      not_ok("resnet50", PassSet::fwd, "cpu", "bf16", 1, "unsupported"),
      not_ok("resnet50", PassSet::fwd, "cpu", "bf16", 8, "unsupported"),
      ok("resnet50", PassSet::fwd, "gpu:0", "fp32", 1, 500),
      ok("resnet50", PassSet::fwd, "gpu:0", "fp32", 8, 2000),
      ok("resnet50", PassSet::fwd, "gpu:0", "fp16", 8, 6000),
      not_ok("resnet50", PassSet::fwd, "gpu:0", "fp16", 16, "oom"),
      not_ok("resnet50", PassSet::fwd, "gpu:0", "fp8", 1, "failed"),
      ok("vit_b_16", PassSet::fwd, "gpu:0", "fp16", 8, 1000),
      ok("vit_b_16", PassSet::train, "cpu", "fp32", 1, 0.1234),
  };
  EXPECT_EQ(summary_table(results),
            "Best images/s per model, pass, device and precision over the batches run; speed-ups "
            "compare these bests.\n"
            "model     pass   device  precision  batch     images/s  vs CPU FP32  vs own FP32  "
            "uncertainty\n"
            "resnet50  fwd    cpu     fp32           8         20.0        1.00x            -  "
            "       2.0%\n"
            "resnet50  fwd    cpu     bf16           -  unsupported            -            -  "
            "          -\n"
            "resnet50  fwd    gpu:0   fp32           8         2000      100.00x        1.00x  "
            "       2.0%\n"
            "resnet50  fwd    gpu:0   fp16           8         6000      300.00x        3.00x  "
            "       2.0%\n"
            "resnet50  fwd    gpu:0   fp8            -       failed            -            -  "
            "          -\n"
            "vit_b_16  fwd    gpu:0   fp16           8         1000            -            -  "
            "       2.0%\n"
            "vit_b_16  train  cpu     fp32           1        0.123        1.00x            -  "
            "       2.0%\n"
            "uncertainty: the summed points' uncertainties (in-run noise or spread between rounds, "
            "the larger) weighted by their share of the time, added as if all erred the same "
            "way.\n"
            "model sum: every operation of the model file (convolutions, GEMMs, normalisation, "
            "activations, residual adds, pooling, softmax), one kernel each; the optimizer "
            "excluded\n");
}

TEST(Summary, SpeedupsCompareTheSameModelAndPassOnly) {
  // The CPU's FP32 training figure is no baseline for inference, nor one model's for another.
  const std::vector<ModelResult> results = {
      ok("resnet50", PassSet::train, "cpu", "fp32", 8, 5),
      ok("vit_b_16", PassSet::fwd, "cpu", "fp32", 8, 4),
      ok("resnet50", PassSet::fwd, "gpu:1", "fp16", 8, 400),
      ok("resnet50", PassSet::fwd, "gpu:0", "fp32", 8, 100),
  };
  const std::string table = summary_table(results);
  // gpu:1 has no FP32 result of its own (gpu:0's is another device) and the CPU none for fwd.
  EXPECT_NE(
      table.find("resnet50  fwd    gpu:1   fp16           8       400            -            -"),
      std::string::npos)
      << table;
  EXPECT_NE(
      table.find("resnet50  fwd    gpu:0   fp32           8       100            -        1.00x"),
      std::string::npos)
      << table;
}

TEST(Summary, NoResults) { EXPECT_EQ(summary_table({}), "No model results.\n"); }

TEST(Summary, ARateSummedOverContendedPointsSaysSo) {
  ModelResult loaded = ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10);
  loaded.contended_points = 2;
  const std::string text = summary_table({loaded});
  EXPECT_NE(text.find("10.0 (contended)"), std::string::npos) << text;
  EXPECT_NE(text.find("lost CPU to other processes"), std::string::npos) << text;
  EXPECT_EQ(summary_table({ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10)}).find("contended"),
            std::string::npos);
}

// A sum whose uncertainty reaches 10% is unstable, however many of its points are; one below is
// not, though some of its points' rounds disagreed.
TEST(Summary, ARateIsUnstableWhenTheSumsUncertaintyIsTenPercentOrMore) {
  ModelResult shaky = ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10);
  shaky.uncertainty = 0.123;
  shaky.unstable = true;
  shaky.unstable_points = 3;
  const std::string text = summary_table({shaky});
  EXPECT_NE(text.find("10.0 (unstable)        1.00x            -        12.3%\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(unstable): the sum's uncertainty is 10.0% or more"), std::string::npos)
      << text;
  ModelResult steady = ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10);
  steady.unstable_points = 3;
  EXPECT_EQ(summary_table({steady}).find("unstable"), std::string::npos);
}

// An images/J column where some row's sum has an energy figure (NVML, RAPL), "-" in the rows
// without one; none at all on a machine that measured no energy.
TEST(Summary, ImagesPerJouleWhereAnEnergyWasMeasured) {
  ModelResult gpu = ok("resnet50", PassSet::fwd, "gpu:0", "fp32", 8, 2000);
  gpu.images_per_joule = 12.34;
  const std::string text = summary_table({ok("resnet50", PassSet::fwd, "cpu", "fp32", 8, 20), gpu});
  EXPECT_NE(text.find("uncertainty  images/J\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2.0%      12.3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2.0%         -\n"), std::string::npos) << text;
  EXPECT_EQ(summary_table({ok("resnet50", PassSet::fwd, "cpu", "fp32", 1, 10)}).find("images/J"),
            std::string::npos);
}

// A sum whose memory-bound layers come from another precision's points says so under the table,
// once per precision; sums in one precision throughout add nothing.
TEST(Summary, SumsWithMemoryBoundLayersInAnotherPrecisionSaySo) {
  ModelResult tf32 = ok("resnet50", PassSet::fwd, "gpu:0", "tf32", 8, 3000);
  tf32.layer_precisions = {{"conv", "tf32"}, {"batch_norm", "fp32"}};
  ModelResult tf32_b1 = ok("resnet50", PassSet::fwd, "gpu:0", "tf32", 1, 600);
  tf32_b1.layer_precisions = tf32.layer_precisions;
  ModelResult fp32 = ok("resnet50", PassSet::fwd, "gpu:0", "fp32", 8, 2000);
  fp32.layer_precisions = {{"conv", "fp32"}, {"batch_norm", "fp32"}};
  const std::string text = summary_table({fp32, tf32, tf32_b1});
  const std::string line = "tf32: memory-bound layers in fp32, as frameworks run them.\n";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line), text.rfind(line)) << text;
  EXPECT_EQ(summary_table({fp32}).find("memory-bound layers in"), std::string::npos);
}

}  // namespace
}  // namespace lb
