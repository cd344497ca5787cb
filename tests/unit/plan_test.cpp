#include "harness/plan/plan.hpp"
#include "harness/measure/oom_sweep.hpp"
#include "harness/measure/point_measurement.hpp"
#include "harness/model/model_file.hpp"
#include "harness/results/point.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace lb {
namespace {

const std::vector<Model>& shipped() {
  static const std::vector<Model> models = load_builtin_models();
  return models;
}

const DeviceTarget cpu{"cpu", false};
const DeviceTarget gpu{"gpu:0", true};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument thrown)";
}

template <class T, class F>
std::set<T> collect(const Plan& plan, F field) {
  std::set<T> values;
  for (const auto& p : plan.points) values.insert(field(p));
  return values;
}

int op_count(const std::string& model) {
  return static_cast<int>(find_model(shipped(), model)->ops.size());
}

TEST(Plan, QuickSuiteOnCpu) {
  const Plan plan = expand_plan({}, shipped(), {cpu});
  EXPECT_FALSE(plan.sweep_until_oom);
  EXPECT_EQ(collect<std::string>(plan, [](auto& p) { return p.model->name; }),
            (std::set<std::string>{"resnet50", "vit_b_16"}));
  EXPECT_EQ(collect<int>(plan, [](auto& p) { return p.batch; }), (std::set<int>{1, 8}));
  EXPECT_EQ(collect<Precision>(plan, [](auto& p) { return p.precision; }),
            (std::set<Precision>{Precision::fp32, Precision::bf16}));
  EXPECT_EQ(collect<Pass>(plan, [](auto& p) { return p.pass; }), std::set<Pass>{Pass::fwd});
  // Every op once per precision and batch.
  EXPECT_EQ(plan.points.size(),
            static_cast<size_t>((op_count("resnet50") + op_count("vit_b_16")) * 2 * 2));
  for (const auto& p : plan.points) {
    EXPECT_EQ(p.device, "cpu");
    EXPECT_FALSE(p.accelerator);
  }
}

TEST(Plan, EachBackendOfADeviceIsATargetOfItsOwn) {
  const DeviceTarget onednn{"cpu", false, "onednn"}, openblas{"cpu", false, "openblas"};
  const Plan one = expand_plan({}, shipped(), {onednn});
  const Plan both = expand_plan({}, shipped(), {onednn, openblas, openblas});  // listed twice
  ASSERT_EQ(both.points.size(), 2 * one.points.size());
  std::set<std::string> names;
  for (const auto& p : both.points) {
    EXPECT_EQ(p.device, "cpu");
    names.insert(point_key(p));
  }
  EXPECT_EQ(names.size(), both.points.size()) << "two backends' points share a name";
  EXPECT_EQ(collect<std::string>(both, [](auto& p) { return p.backend; }),
            (std::set<std::string>{"onednn", "openblas"}));
  EXPECT_EQ(point_key(one.points.front()).find('@'), std::string::npos);
}

TEST(Plan, QuickSuiteOnGpuHasEveryPrecision) {
  const Plan plan = expand_plan({}, shipped(), {cpu, gpu});
  std::set<Precision> gpu_precisions;
  for (const auto& p : plan.points)
    if (p.accelerator) gpu_precisions.insert(p.precision);
  EXPECT_EQ(gpu_precisions,
            std::set<Precision>(std::begin(all_precisions), std::end(all_precisions)));
  EXPECT_EQ(plan.points.size(),
            static_cast<size_t>((op_count("resnet50") + op_count("vit_b_16")) * 2 * (2 + 5)));
}

TEST(Plan, StandardSuiteTrainsEveryModelWithDeviceBatchRanges) {
  RunRequest request;
  request.suite = "standard";
  const Plan plan = expand_plan(request, shipped(), {cpu, gpu});
  EXPECT_EQ(collect<std::string>(plan, [](auto& p) { return p.model->name; }).size(),
            shipped().size());
  std::set<int> cpu_batches, gpu_batches;
  for (const auto& p : plan.points) (p.accelerator ? gpu_batches : cpu_batches).insert(p.batch);
  EXPECT_EQ(cpu_batches, (std::set<int>{1, 2, 4, 8}));
  EXPECT_EQ(gpu_batches, (std::set<int>{1, 2, 4, 8, 16, 32, 64}));
  // Training: fwd, bwd_data and bwd_weights for every op but the input layer's bwd_data; the
  // forward points serve inference and training alike, so none is planned twice.
  std::map<std::tuple<std::string, std::string, int, Precision, Pass, std::string>, int> seen;
  for (const auto& p : plan.points) {
    ++seen[{p.model->name, p.op->id, p.batch, p.precision, p.pass, p.device}];
    if (p.op->input_layer) EXPECT_NE(p.pass, Pass::bwd_data) << p.op->id;
  }
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1);
  const Model& resnet = *find_model(shipped(), "resnet50");
  const auto resnet_points_cpu_fp32_b1 =
      std::count_if(plan.points.begin(), plan.points.end(), [&](const PlannedPoint& p) {
        return p.model == &resnet && p.device == "cpu" && p.precision == Precision::fp32 &&
               p.batch == 1;
      });
  // 24 convolution and GEMM ops x 3 passes, minus conv1's bwd_data; the 30 memory-bound ops
  // have fwd and bwd_data, and the batch norms among them fwd_training as well.
  const auto resnet_batch_norms =
      std::count_if(resnet.ops.begin(), resnet.ops.end(),
                    [](const Op& op) { return op.kind == OpKind::batch_norm; });
  EXPECT_GT(resnet_batch_norms, 0);
  EXPECT_EQ(resnet_points_cpu_fp32_b1,
            (3 * 24 - 1) + 2 * (op_count("resnet50") - 24) + resnet_batch_norms);
}

TEST(Plan, FullSuiteSweepsGpuBatchesUntilOom) {
  RunRequest request;
  request.suite = "full";
  const Plan plan = expand_plan(request, shipped(), {gpu});
  EXPECT_TRUE(plan.sweep_until_oom);
  const auto batches = collect<int>(plan, [](auto& p) { return p.batch; });
  EXPECT_EQ(*batches.begin(), 1);
  EXPECT_EQ(*batches.rbegin(), 4096);
  EXPECT_EQ(batches.size(), 13u);  // 2^0 .. 2^12
}

TEST(Plan, FullSuiteLimitIsWhereEveryModelOutgrowsThirtyTwoBitIndexing) {
  // The sweep's last batch is justified by the catalogue: at 4096 every shipped model has a
  // tensor over 32-bit indexing, at 2048 none does.
  for (const Model& model : shipped()) {
    bool overflow_2048 = false, overflow_4096 = false;
    for (const Op& op : model.ops) {
      overflow_2048 |= indexing_overflow(op, 2048).has_value();
      overflow_4096 |= indexing_overflow(op, 4096).has_value();
    }
    EXPECT_FALSE(overflow_2048) << model.name;
    EXPECT_TRUE(overflow_4096) << model.name;
  }
}

TEST(Plan, ExplicitFlagsOverrideTheSuite) {
  RunRequest request;
  request.models = {"vit_l_16"};
  request.batches = {2, 4};
  request.precisions = {Precision::fp16};
  request.pass = PassSet::train;
  const Plan plan = expand_plan(request, shipped(), {cpu, gpu});
  EXPECT_EQ(collect<std::string>(plan, [](auto& p) { return p.model->name; }),
            std::set<std::string>{"vit_l_16"});
  EXPECT_EQ(collect<int>(plan, [](auto& p) { return p.batch; }), (std::set<int>{2, 4}));
  EXPECT_EQ(collect<Precision>(plan, [](auto& p) { return p.precision; }),
            std::set<Precision>{Precision::fp16});
  EXPECT_EQ(collect<Pass>(plan, [](auto& p) { return p.pass; }),
            (std::set<Pass>{Pass::fwd, Pass::bwd_data, Pass::bwd_weights}));
  // 8 convolution and GEMM ops x 3 passes - the patch embedding's bwd_data, 4 memory-bound ops
  // x 2 passes and the broadcast position-embedding add's fwd, x 2 batches x 2 devices.
  ASSERT_EQ(op_count("vit_l_16"), 8 + 5);
  EXPECT_EQ(plan.points.size(), static_cast<size_t>(((3 * 8 - 1) + 2 * 4 + 1) * 2 * 2));
}

TEST(Plan, TrainingPlansBatchNormsTrainingForwardAndKeepsItsInferenceForward) {
  RunRequest request;
  request.models = {"resnet50"};
  request.batches = {1};
  request.precisions = {Precision::fp32};
  const auto bn_passes = [&](std::optional<PassSet> set) {
    request.pass = set;
    std::vector<Pass> passes;
    for (const auto& p : expand_plan(request, shipped(), {cpu}).points)
      if (p.op->id == "bn_64_56") passes.push_back(p.pass);
    return passes;
  };
  // The training step's fwd_training and bwd_data, and inference's fwd for the forward sums.
  EXPECT_EQ(bn_passes(PassSet::train),
            (std::vector<Pass>{Pass::fwd, Pass::fwd_training, Pass::bwd_data}));
  EXPECT_EQ(bn_passes(PassSet::fwd), (std::vector<Pass>{Pass::fwd}));
}

// A TF32 (FP8) model sum takes its memory-bound layers in FP32 (BF16): asked alone, it has
// them planned in that precision too, noted as planned for it; asked with it, nothing is added.
TEST(Plan, Tf32OrFp8AlonePlansTheirSumsMemoryBoundPrecision) {
  RunRequest request;
  request.models = {"resnet50"};
  request.batches = {8};
  request.pass = PassSet::fwd;
  const int ops = op_count("resnet50");
  int memory_bound = 0;
  for (const Op& op : find_model(shipped(), "resnet50")->ops)
    memory_bound += is_memory_bound(op.kind);
  ASSERT_GT(memory_bound, 0);
  for (auto [matrix, memory] :
       {std::pair{Precision::tf32, Precision::fp32}, std::pair{Precision::fp8, Precision::bf16}}) {
    request.precisions = {matrix};
    const Plan alone = expand_plan(request, shipped(), {gpu});
    ASSERT_EQ(alone.points.size(), static_cast<size_t>(ops + memory_bound)) << name(matrix);
    std::set<std::string> keys;
    for (const auto& p : alone.points) {
      keys.insert(point_key(p));
      if (p.precision == matrix) {
        EXPECT_EQ(p.planned_for, "");
        continue;
      }
      EXPECT_EQ(p.precision, memory);
      EXPECT_TRUE(is_memory_bound(p.op->kind)) << p.op->id;
      EXPECT_EQ(p.planned_for, std::string(name(matrix)));
      const Point described = describe_point(p, problem_for(*p.op, p.batch, p.pass, p.precision));
      EXPECT_EQ(described.notes.at(planned_for_note), std::string(name(matrix)));
    }
    EXPECT_EQ(keys.size(), alone.points.size());
    request.precisions = {matrix, memory};
    const Plan both = expand_plan(request, shipped(), {gpu});
    EXPECT_EQ(both.points.size(), static_cast<size_t>(2 * ops));
    for (const auto& p : both.points) EXPECT_EQ(p.planned_for, "") << point_key(p);
  }
  // Both at once: each substitute precision once, for its own matrix precision.
  request.precisions = {Precision::tf32, Precision::fp8};
  const Plan two = expand_plan(request, shipped(), {gpu});
  EXPECT_EQ(two.points.size(), static_cast<size_t>(2 * (ops + memory_bound)));
}

TEST(Plan, GflopIsTheExecutedProblemsWork) {
  RunRequest request;
  request.models = {"resnet50"};
  request.batches = {8};
  request.precisions = {Precision::fp32};
  const Plan plan = expand_plan(request, shipped(), {cpu});
  for (const auto& p : plan.points)
    EXPECT_DOUBLE_EQ(p.gflop, flop_count(problem_for(*p.op, 8, p.pass, p.precision)) / 1e9);
  // conv1 (the first op): 2 x (8 x 64 x 112 x 112 outputs) x (3 x 7 x 7) multiply-adds.
  ASSERT_EQ(plan.points.front().op->id, "conv7x7_3to64_s2_224");
  EXPECT_NEAR(plan.points.front().gflop, 2.0 * 8 * 64 * 112 * 112 * 3 * 7 * 7 / 1e9, 1e-9);
}

TEST(Plan, GroupsAreContiguousCheapestFirstForwardFirst) {
  RunRequest request;
  request.suite = "standard";
  const Plan plan = expand_plan(request, shipped(), {cpu, gpu});
  using GroupKey = std::tuple<std::string, std::string, Precision, int>;
  const auto key = [](const PlannedPoint& p) {
    return GroupKey{p.device, p.model->name, p.precision, p.batch};
  };
  std::set<GroupKey> finished;
  std::vector<double> group_gflop;
  std::map<std::tuple<std::string, std::string, Precision>, int> last_batch;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const auto& p = plan.points[i];
    const bool starts_group = i == 0 || key(plan.points[i - 1]) != key(p);
    if (starts_group) {
      ASSERT_TRUE(finished.insert(key(p)).second)
          << "group split: " << p.model->name << " b" << p.batch;
      group_gflop.push_back(0);
      // A sweep's batches ascend, so the runner sees the smaller batch's oom first.
      auto& last = last_batch[{p.device, p.model->name, p.precision}];
      EXPECT_GT(p.batch, last);
      last = p.batch;
    } else {
      // Within a group the passes never go back: fwd, then bwd_data, then bwd_weights.
      EXPECT_GE(static_cast<int>(p.pass), static_cast<int>(plan.points[i - 1].pass));
    }
    group_gflop.back() += p.gflop;
  }
  // Cost is the work measured: each distinct shape once (not times its layer count).
  EXPECT_TRUE(std::is_sorted(group_gflop.begin(), group_gflop.end()));
  EXPECT_EQ(plan.points.front().batch, 1);
}

TEST(Plan, BadRequestsNameTheFlag) {
  RunRequest request;
  request.models = {"resnet5"};
  EXPECT_EQ(message_of([&] { expand_plan(request, shipped(), {cpu}); }),
            "--model: unknown model 'resnet5'; known: resnet50, vit_b_16, vit_l_16");
  request = {};
  request.suite = "huge";
  EXPECT_EQ(message_of([&] { expand_plan(request, shipped(), {cpu}); }),
            "--suite: unknown suite 'huge'; known: quick, standard, full");
  EXPECT_EQ(message_of([&] { expand_plan({}, shipped(), {}); }), "--device: no device to run on");
  request = {};
  request.batches = {0};
  EXPECT_EQ(message_of([&] { expand_plan(request, shipped(), {cpu}); }),
            "--batch: '0' is not a positive integer");
  // A catalogue without the quick suite's models: the suite says what it misses.
  std::vector<Model> only_vit_l{*find_model(shipped(), "vit_l_16")};
  EXPECT_NE(message_of([&] {
              expand_plan({}, only_vit_l, {cpu});
            }).find("--suite: quick needs model 'resnet50'"),
            std::string::npos);
}

TEST(ParseLists, Batches) {
  EXPECT_EQ(parse_batch_list("1,8,32"), (std::vector<int>{1, 8, 32}));
  EXPECT_EQ(parse_batch_list(" 4 , 2,4"), (std::vector<int>{4, 2}));
  EXPECT_EQ(message_of([] { parse_batch_list("1,x"); }), "--batch: 'x' is not a positive integer");
  EXPECT_EQ(message_of([] { parse_batch_list("-2"); }), "--batch: '-2' is not a positive integer");
  EXPECT_EQ(message_of([] { parse_batch_list("8k"); }), "--batch: '8k' is not a positive integer");
  EXPECT_EQ(message_of([] { parse_batch_list("99999999999"); }),
            "--batch: '99999999999' is not a positive integer");
  EXPECT_EQ(message_of([] { parse_batch_list("1,,2"); }), "--batch: empty item in '1,,2'");
  EXPECT_EQ(message_of([] { parse_batch_list(""); }), "--batch: empty item in ''");
}

TEST(ParseLists, Precisions) {
  EXPECT_EQ(parse_precision_list("fp32,fp16"),
            (std::vector<Precision>{Precision::fp32, Precision::fp16}));
  EXPECT_EQ(message_of([] { parse_precision_list("fp32,fp64"); }),
            "--precision: unknown precision 'fp64'; known: fp32, tf32, fp16, bf16, fp8");
}

TEST(OomSweep, SkipsLargerBatchesOfTheSameModelDevicePrecisionAndPass) {
  RunRequest request;
  request.models = {"resnet50"};
  request.batches = {128, 256, 512};
  request.precisions = {Precision::fp16, Precision::fp32};
  request.pass = PassSet::train;
  const Plan plan = expand_plan(request, shipped(), {gpu, DeviceTarget{"gpu:1", true}});
  const auto find = [&](int batch, Precision precision, Pass pass, const std::string& device) {
    for (const auto& p : plan.points)
      if (p.batch == batch && p.precision == precision && p.pass == pass && p.device == device &&
          p.op->id == "conv3x3_64to64_56")
        return p;
    ADD_FAILURE() << "no such point";
    return PlannedPoint{};
  };
  OomSweep sweep;
  sweep.record_oom(find(512, Precision::fp16, Pass::fwd, "gpu:0"));
  sweep.record_oom(find(256, Precision::fp16, Pass::fwd, "gpu:0"));  // smaller one wins
  EXPECT_EQ(sweep.smaller_oom_batch(find(512, Precision::fp16, Pass::fwd, "gpu:0")), 256);
  EXPECT_EQ(sweep.smaller_oom_batch(find(256, Precision::fp16, Pass::fwd, "gpu:0")), std::nullopt);
  EXPECT_EQ(sweep.smaller_oom_batch(find(128, Precision::fp16, Pass::fwd, "gpu:0")), std::nullopt);
  EXPECT_EQ(sweep.smaller_oom_batch(find(512, Precision::fp32, Pass::fwd, "gpu:0")), std::nullopt);
  EXPECT_EQ(sweep.smaller_oom_batch(find(512, Precision::fp16, Pass::bwd_data, "gpu:0")),
            std::nullopt);
  EXPECT_EQ(sweep.smaller_oom_batch(find(512, Precision::fp16, Pass::fwd, "gpu:1")), std::nullopt);
  // A resumed file's oom point counts the same.
  Point resumed;
  resumed.model = "resnet50";
  resumed.device = "gpu:1";
  resumed.precision = Precision::fp32;
  resumed.pass = Pass::bwd_weights;
  resumed.batch = 128;
  resumed.status = Status::oom;
  sweep.record_oom(resumed);
  EXPECT_EQ(sweep.smaller_oom_batch(find(256, Precision::fp32, Pass::bwd_weights, "gpu:1")), 128);
  EXPECT_EQ(oom_skip_reason(256), "out of memory at batch 256 already; larger batches are not run");
}

}  // namespace
}  // namespace lb
