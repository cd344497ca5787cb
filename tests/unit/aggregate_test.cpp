// Layer sums on a tiny hand-made model with hand-made points. Every median below is test
// data chosen to make the sums easy to check by hand, not a measurement.
#include "harness/results/aggregate.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "harness/model/model_file.hpp"

namespace lb {
namespace {

// stem: conv 3->4 channels, 8x8, 3x3 pad 1, the input layer (no bwd_data), 1 layer
// blk:  conv 4->4 channels, 8x8, 3x3 pad 1, 2 layers
// fc:   linear 256 -> 10, one token per image, 3 layers
Model tiny_model() {
  Model m;
  m.name = "tiny";
  m.title = "Tiny test model";
  Op stem;
  stem.id = "stem";
  stem.kind = OpKind::conv;
  stem.layers = {"stem"};
  stem.conv = {1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  stem.input_layer = true;
  Op blk = stem;
  blk.id = "blk";
  blk.layers = {"b1.conv", "b2.conv"};
  blk.conv.c = 4;
  blk.input_layer = false;
  Op fc;
  fc.id = "fc";
  fc.kind = OpKind::linear;
  fc.layers = {"fc1", "fc2", "fc3"};
  fc.gemm = {1, 1, 10, 256, false, true};
  fc.tokens = 1;
  m.ops = {stem, blk, fc};
  return m;
}

const std::vector<Model> models{tiny_model()};

// Hand-computed FLOPs (2 x multiply-adds) per image: stem 2*4*64*3*9 = 13824,
// blk 2*4*64*4*9 = 18432 (x2 layers), fc 2*10*256 = 5120 (x3 layers).
constexpr double fwd_flop_per_image = 13824 + 2 * 18432 + 3 * 5120;  // 66048
// Training adds bwd_weights for stem and bwd_data + bwd_weights for blk and fc, same FLOPs each.
constexpr double train_flop_per_image = fwd_flop_per_image + 13824 + 2 * (2 * 18432 + 3 * 5120);

// Test-data medians in ms per op and pass at batch 1; other batches scale them by the batch.
const std::map<std::pair<std::string, std::string>, double> median_ms_b1 = {
    {{"stem", "fwd"}, 1}, {{"stem", "bwd_weights"}, 2},                               //
    {{"blk", "fwd"}, 3},  {{"blk", "bwd_data"}, 4},     {{"blk", "bwd_weights"}, 5},  //
    {{"fc", "fwd"}, 0.5}, {{"fc", "bwd_data"}, 0.25},   {{"fc", "bwd_weights"}, 0.75}};

Point make_point(const std::string& op, const std::string& pass, int batch,
                 const std::string& device = "cpu", const std::string& precision = "fp32",
                 Status status = Status::ok) {
  Point p;
  p.model = "tiny";
  p.op = op;
  p.pass = parse_pass(pass).value();
  p.batch = batch;
  p.device = device;
  p.precision = parse_precision(precision).value();
  p.status = status;
  if (status == Status::ok) {
    SampleStats t;
    t.median_s = median_ms_b1.at({op, pass}) * batch / 1e3;
    p.timing = t;
  } else {
    p.reason = "test reason";
  }
  return p;
}

std::vector<Point> all_points(int batch, bool train, const std::string& device = "cpu",
                              const std::string& precision = "fp32") {
  std::vector<Point> points;
  for (const auto& [key, ms] : median_ms_b1)
    if (train || key.second == "fwd")
      points.push_back(make_point(key.first, key.second, batch, device, precision));
  return points;
}

const ModelResult& find(const Aggregation& a, PassSet pass, int batch,
                        const std::string& precision = "fp32") {
  for (const auto& r : a.models)
    if (r.pass == pass && r.batch == batch && r.precision == precision) return r;
  throw std::runtime_error("no such result");
}

TEST(Aggregate, InferenceSumsCountTimesMedian) {
  const std::map<std::string, DeviceLimits> devices{
      {"cpu", {{{Precision::fp32, 1e-4}}, std::nullopt}}};
  const auto a = aggregate(all_points(4, false), models, devices);
  ASSERT_EQ(a.models.size(), 1u);  // no backward points: no training result
  const ModelResult& r = a.models[0];
  EXPECT_EQ(r.model, "tiny");
  EXPECT_EQ(r.title, "Tiny test model");
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.reason, "");
  // 4 x (1 x 1 + 2 x 3 + 3 x 0.5) ms = 34 ms.
  EXPECT_DOUBLE_EQ(*r.time_ms, 34);
  EXPECT_DOUBLE_EQ(*r.images_per_s, 4 / 0.034);
  EXPECT_DOUBLE_EQ(r.gflop, 4 * fwd_flop_per_image / 1e9);
  EXPECT_DOUBLE_EQ(*r.tflops, 4 * fwd_flop_per_image / 1e9 / 34);
  EXPECT_DOUBLE_EQ(*r.peak_fraction, *r.tflops / 1e-4);
  EXPECT_DOUBLE_EQ(r.time_share.at("conv"), 4 * 7.0 / 34);
  EXPECT_DOUBLE_EQ(r.time_share.at("linear"), 4 * 1.5 / 34);
  EXPECT_EQ(r.time_share.count("bmm"), 0u);  // only the kinds the model has
  EXPECT_EQ(r.label, model_sum_label);
  EXPECT_EQ(r.estimate, "eager");
  ASSERT_TRUE(r.kinds);
  EXPECT_DOUBLE_EQ(r.kinds->ms.at("convolution"), 4 * 7.0);
  EXPECT_DOUBLE_EQ(r.kinds->share.at("gemm"), 4 * 1.5 / 34);
  EXPECT_DOUBLE_EQ(r.kinds->share.at("normalisation"), 0);
  // Nothing to fold: the folded estimate is the eager one.
  ASSERT_TRUE(r.folded);
  EXPECT_TRUE(r.folded->folded_ops.empty());
  EXPECT_DOUBLE_EQ(r.folded->time_ms, 34);
  EXPECT_TRUE(a.boundaries.empty());
}

TEST(Aggregate, TrainingSumsAllPassesWithoutTheInputLayersDataGradient) {
  const auto a = aggregate(all_points(2, true), models, {});
  ASSERT_EQ(a.models.size(), 2u);
  EXPECT_DOUBLE_EQ(*find(a, PassSet::fwd, 2).time_ms, 2 * 8.5);
  const ModelResult& train = find(a, PassSet::train, 2);
  EXPECT_EQ(train.status, "ok");
  // 2 x (1 x (1 + 2) + 2 x (3 + 4 + 5) + 3 x (0.5 + 0.25 + 0.75)) ms = 63 ms.
  EXPECT_DOUBLE_EQ(*train.time_ms, 63);
  EXPECT_DOUBLE_EQ(*train.images_per_s, 2 / 0.063);
  EXPECT_DOUBLE_EQ(train.gflop, 2 * train_flop_per_image / 1e9);
  EXPECT_DOUBLE_EQ(train.time_share.at("conv"), 2 * 27.0 / 63);
  EXPECT_DOUBLE_EQ(train.time_share.at("linear"), 2 * 4.5 / 63);
  // No peak known for the device: no fraction.
  EXPECT_FALSE(train.peak_fraction.has_value());
  EXPECT_FALSE(train.folded);  // folding is an inference deployment
}

// A batch norm over the tiny model's 4 x 8 x 8 activations, in two of its layers.
Op tiny_batch_norm() {
  Op bn;
  bn.id = "bn";
  bn.kind = OpKind::batch_norm;
  bn.layers = {"b1.bn", "b2.bn"};
  bn.memory = {MemoryOp::batch_norm, {1, 4, 8, 8}};
  return bn;
}

// The tiny model with a batch norm: a training step sums its training forward and its backward,
// inference its inference forward; medians are test data.
TEST(Aggregate, TrainingSumsBatchNormsTrainingForwardAndInferenceItsForward) {
  Model m = tiny_model();
  Op bn = tiny_batch_norm();
  m.ops.push_back(bn);
  std::vector<Point> points = all_points(1, true);
  for (auto [pass, ms] : {std::pair{Pass::fwd, 0.5}, std::pair{Pass::fwd_training, 0.75},
                          std::pair{Pass::bwd_data, 1.0}}) {
    Point p = make_point("stem", "fwd", 1);
    p.op = "bn", p.pass = pass;
    p.timing->median_s = ms / 1e3;
    points.push_back(p);
  }
  const auto a = aggregate(points, {m}, {});
  // 8.5 ms of convolutions and GEMMs and 2 x 0.5 ms of inference batch norm.
  EXPECT_DOUBLE_EQ(*find(a, PassSet::fwd, 1).time_ms, 9.5);
  // 31.5 ms of convolutions and GEMMs (the training test above) and 2 x (0.75 + 1) ms.
  const ModelResult& train = find(a, PassSet::train, 1);
  ASSERT_EQ(train.status, "ok");
  EXPECT_DOUBLE_EQ(*train.time_ms, 35);
}

// The tiny model with a batch norm after blk (foldable), a ReLU and a max pool; medians are
// test data.
TEST(Aggregate, SharesPerKindGroupAndTheFoldedInferenceEstimate) {
  Model m = tiny_model();
  Op bn = tiny_batch_norm();
  bn.after_conv = true;
  Op relu = bn;
  relu.id = "relu", relu.kind = OpKind::eltwise, relu.after_conv = false;
  relu.layers = {"b1.relu", "b2.relu", "b3.relu"};
  relu.memory.op = MemoryOp::relu;
  Op pool = relu;
  pool.id = "pool", pool.kind = OpKind::pool, pool.layers = {"pool"};
  pool.memory = {MemoryOp::max_pool, {1, 4, 8, 8}, false, 2, 2, 0};
  m.ops.insert(m.ops.end(), {bn, relu, pool});
  std::vector<Point> points = all_points(1, false);
  for (auto [op, ms] : {std::pair{"bn", 0.5}, std::pair{"relu", 0.25}, std::pair{"pool", 1.0}}) {
    Point p = make_point("stem", "fwd", 1);
    p.op = op;
    p.timing->median_s = ms / 1e3;
    points.push_back(p);
  }
  const auto a = aggregate(points, {m}, {});
  const ModelResult& r = find(a, PassSet::fwd, 1);
  ASSERT_EQ(r.status, "ok");
  // 8.5 ms of convolutions and GEMMs, 2 x 0.5 batch norm, 3 x 0.25 ReLU, 1 pooling: 11.25 ms.
  EXPECT_DOUBLE_EQ(*r.time_ms, 11.25);
  const std::map<std::string, double> ms{{"convolution", 7},   {"gemm", 1.5},
                                         {"normalisation", 1}, {"elementwise", 0.75},
                                         {"pooling", 1},       {"softmax", 0}};
  EXPECT_EQ(r.kinds->ms, ms);
  double shares = 0;
  for (const auto& [group, share] : r.kinds->share) {
    EXPECT_DOUBLE_EQ(share, ms.at(group) / 11.25) << group;
    shares += share;
  }
  EXPECT_DOUBLE_EQ(shares, 1);
  EXPECT_DOUBLE_EQ(r.time_share.at("batch_norm"), 1 / 11.25);
  // Folded: the batch norms dropped, everything else as measured.
  ASSERT_TRUE(r.folded);
  EXPECT_EQ(r.folded->folded_ops, std::vector<std::string>{"bn"});
  EXPECT_DOUBLE_EQ(r.folded->time_ms, 10.25);
  EXPECT_DOUBLE_EQ(r.folded->images_per_s, 1 / 0.01025);
  EXPECT_DOUBLE_EQ(r.folded->tflops, r.gflop / 10.25);
  EXPECT_DOUBLE_EQ(r.folded->kinds.ms.at("normalisation"), 0);
  EXPECT_DOUBLE_EQ(r.folded->kinds.share.at("convolution"), 7 / 10.25);
  const auto j = to_json(r);
  EXPECT_EQ(j["estimate"], "eager");
  EXPECT_EQ(j["folded"]["estimate"], "folded");
  EXPECT_EQ(j["folded"]["folded_ops"], nlohmann::json::array({"bn"}));
  EXPECT_DOUBLE_EQ(j["kind_share"]["pooling"].get<double>(), 1 / 11.25);
}

TEST(Aggregate, WorstStatusWinsAndNamesTheFirstOpWithIt) {
  auto points = all_points(1, true);
  for (auto& p : points) {
    if (p.op == "fc" && p.pass == Pass::bwd_data)
      p = make_point("fc", "bwd_data", 1, "cpu", "fp32", Status::oom);
    if (p.op == "blk" && p.pass == Pass::bwd_weights)
      p = make_point("blk", "bwd_weights", 1, "cpu", "fp32", Status::failed);
    if (p.op == "stem" && p.pass == Pass::bwd_weights)
      p = make_point("stem", "bwd_weights", 1, "cpu", "fp32", Status::unsupported);
  }
  const auto a = aggregate(points, models, {});
  const ModelResult& train = find(a, PassSet::train, 1);
  EXPECT_EQ(train.status, "failed");
  EXPECT_EQ(train.reason, "failed: blk bwd_weights (b1.conv and 1 more): test reason");
  EXPECT_FALSE(train.time_ms.has_value());
  EXPECT_FALSE(train.images_per_s.has_value());
  EXPECT_TRUE(train.time_share.empty());
  EXPECT_DOUBLE_EQ(train.gflop, train_flop_per_image / 1e9);  // known without measurement
  // The forward sum does not depend on the backward points.
  EXPECT_EQ(find(a, PassSet::fwd, 1).status, "ok");
}

TEST(Aggregate, UnsupportedPrecision) {
  std::vector<Point> points;
  for (const char* op : {"stem", "blk", "fc"})
    points.push_back(make_point(op, "fwd", 1, "cpu", "bf16", Status::unsupported));
  const auto a = aggregate(points, models, {});
  ASSERT_EQ(a.models.size(), 1u);
  EXPECT_EQ(a.models[0].status, "unsupported");
  EXPECT_EQ(a.models[0].reason, "unsupported: stem fwd (stem): test reason");
}

TEST(Aggregate, MissingPointsMakeTheSumIncomplete) {
  auto points = all_points(1, true);
  // A killed run: fc's backward points never came.
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const Point& p) { return p.op == "fc" && p.pass != Pass::fwd; }),
               points.end());
  const auto a = aggregate(points, models, {});
  EXPECT_EQ(find(a, PassSet::fwd, 1).status, "ok");
  const ModelResult& train = find(a, PassSet::train, 1);
  EXPECT_EQ(train.status, "incomplete");
  EXPECT_EQ(train.reason,
            "incomplete: 2 of 8 points not measured, first fc bwd_data (fc1 and 2 more)");
  EXPECT_FALSE(train.time_ms.has_value());
}

TEST(Aggregate, TwoBackendsOnOneDeviceAreSummedApartAndNeverMixed) {
  std::vector<Point> points = all_points(1, false);  // oneDNN's: every op ok
  for (Point p : all_points(1, false)) {             // another backend that has no convolution
    p.backend = "openblas";
    if (p.op != "fc")
      p.status = Status::unsupported, p.timing.reset(), p.reason = "no conv";
    else
      p.timing->median_s *= 2;
    points.push_back(p);
  }
  const auto a = aggregate(points, models, {});
  ASSERT_EQ(a.models.size(), 2u);
  const ModelResult &first = a.models[0], &other = a.models[1];
  EXPECT_EQ(first.backend, "");
  EXPECT_EQ(first.status, "ok");
  EXPECT_DOUBLE_EQ(*first.time_ms, 1 + 2 * 3 + 3 * 0.5);  // the oneDNN times alone
  EXPECT_EQ(other.device, "cpu");
  EXPECT_EQ(other.backend, "openblas");
  EXPECT_EQ(other.status, "unsupported");
  EXPECT_FALSE(other.time_ms.has_value()) << "no model total without the convolutions";
  EXPECT_EQ(to_json(other)["backend"], "openblas");
  EXPECT_FALSE(to_json(first).contains("backend"));
}

TEST(Aggregate, OomBatchGetsLargestFittingBatchAndAccumulation) {
  const std::string gpu = "gpu:0";
  std::vector<Point> points;
  for (int b : {1, 2})
    for (auto& p : all_points(b, false, gpu)) points.push_back(p);
  // Batch 5 runs out of memory in blk; batch 8 is skipped by the sweep (recorded as oom).
  for (int b : {5, 8}) {
    points.push_back(make_point("stem", "fwd", b, gpu));
    points.push_back(make_point("blk", "fwd", b, gpu, "fp32", Status::oom));
    points.push_back(make_point("fc", "fwd", b, gpu, "fp32", b == 8 ? Status::oom : Status::ok));
  }
  const std::map<std::string, DeviceLimits> devices{{gpu, {{}, std::uint64_t{1} << 30}}};
  const auto a = aggregate(points, models, devices);
  ASSERT_EQ(a.models.size(), 4u);
  const ModelResult& b5 = find(a, PassSet::fwd, 5);
  EXPECT_EQ(b5.status, "oom");
  EXPECT_EQ(b5.reason, "oom: blk fwd (b1.conv and 1 more): test reason");
  EXPECT_EQ(b5.largest_fitting_batch, 2);
  ASSERT_TRUE(b5.accumulation.has_value());
  // k = ceil(5 / 2) = 3 steps of 2 (6 images); images/s = 2 / time(2) = 2 / 17 ms.
  EXPECT_EQ(b5.accumulation->batch, 2);
  EXPECT_EQ(b5.accumulation->steps, 3);
  EXPECT_EQ(b5.accumulation->effective_batch(), 6);
  EXPECT_DOUBLE_EQ(b5.accumulation->images_per_s, 2 / 0.017);
  const ModelResult& b8 = find(a, PassSet::fwd, 8);
  ASSERT_TRUE(b8.accumulation.has_value());
  EXPECT_EQ(b8.accumulation->steps, 4);
  // Batches that fit carry neither.
  EXPECT_FALSE(find(a, PassSet::fwd, 2).largest_fitting_batch.has_value());
  EXPECT_FALSE(find(a, PassSet::fwd, 2).accumulation.has_value());

  ASSERT_EQ(a.boundaries.size(), 1u);
  const Boundary& bd = a.boundaries[0];
  EXPECT_EQ(bd.model, "tiny");
  EXPECT_EQ(bd.device, gpu);
  EXPECT_EQ(bd.precision, "fp32");
  EXPECT_EQ(bd.pass, PassSet::fwd);
  EXPECT_EQ(bd.largest_fitting_batch, 2);
  EXPECT_EQ(bd.first_oom_batch, 5);
  EXPECT_EQ(bd.memory_limit_bytes, std::uint64_t{1} << 30);
}

TEST(Aggregate, OomAtTheFirstBatchHasNoFittingBatch) {
  std::vector<Point> points{make_point("stem", "fwd", 1, "gpu:0", "fp8", Status::oom)};
  const auto a = aggregate(points, models, {});
  ASSERT_EQ(a.models.size(), 1u);
  EXPECT_EQ(a.models[0].status, "oom");  // oom outranks the missing points
  EXPECT_FALSE(a.models[0].largest_fitting_batch.has_value());
  EXPECT_FALSE(a.models[0].accumulation.has_value());
  ASSERT_EQ(a.boundaries.size(), 1u);
  EXPECT_FALSE(a.boundaries[0].largest_fitting_batch.has_value());
  EXPECT_FALSE(a.boundaries[0].memory_limit_bytes.has_value());
}

TEST(Aggregate, OrderAndReplacement) {
  std::vector<Point> points = all_points(8, false, "gpu:0", "fp16");
  for (auto& p : all_points(1, false, "gpu:0", "fp32")) points.push_back(p);
  for (auto& p : all_points(1, false, "cpu", "fp32")) points.push_back(p);
  // A re-measured point (e.g. after --resume) replaces the first one.
  Point again = make_point("fc", "fwd", 1, "cpu");
  again.timing->median_s = 1.5e-3;
  points.push_back(again);
  const auto a = aggregate(points, models, {});
  ASSERT_EQ(a.models.size(), 3u);
  // Devices in first-seen order, then precisions in their fixed order.
  EXPECT_EQ(a.models[0].device, "gpu:0");
  EXPECT_EQ(a.models[0].precision, "fp32");
  EXPECT_EQ(a.models[1].precision, "fp16");
  EXPECT_EQ(a.models[2].device, "cpu");
  EXPECT_DOUBLE_EQ(*a.models[2].time_ms, 1 + 2 * 3 + 3 * 1.5);
}

TEST(Aggregate, PointsOfUnknownModelsOrOpsAreErrors) {
  Point p = make_point("fc", "fwd", 1);
  p.model = "resnet5";
  EXPECT_THROW(aggregate({p}, models, {}), std::invalid_argument);
  p = make_point("fc", "fwd", 1);
  p.op = "fc9";
  EXPECT_THROW(aggregate({p}, models, {}), std::invalid_argument);
}

// The rule frameworks follow: TF32 and FP8 are matrix-product modes; the layers around the
// products run in FP32 and BF16; every other precision runs the whole model.
TEST(Aggregate, MemoryBoundLayersRunInThePrecisionFrameworksUse) {
  const std::map<Precision, Precision> rule = {{Precision::fp32, Precision::fp32},
                                               {Precision::tf32, Precision::fp32},
                                               {Precision::fp16, Precision::fp16},
                                               {Precision::bf16, Precision::bf16},
                                               {Precision::fp8, Precision::bf16}};
  for (Precision p : all_precisions) {
    EXPECT_EQ(memory_bound_precision(p), rule.at(p)) << name(p);
    for (const auto& kind : op_kind_table)
      EXPECT_EQ(precision_in_model(kind.kind, p), kind.memory_bound ? rule.at(p) : p) << kind.name;
  }
}

// The tiny model with its batch norm, at `precision` with every point ok (test-data medians; the
// batch norm's 0.5 ms at batch 1), the batch norm's point at `bn_status`.
std::vector<Point> tiny_bn_points(const std::string& precision, Status bn_status = Status::ok) {
  std::vector<Point> points = all_points(1, false, "gpu:0", precision);
  Point bn = make_point("stem", "fwd", 1, "gpu:0", precision, bn_status);
  bn.op = "bn";
  if (bn.timing) bn.timing->median_s = 0.5e-3;
  points.push_back(bn);
  return points;
}

Model tiny_bn_model() {
  Model m = tiny_model();
  m.ops.push_back(tiny_batch_norm());
  return m;
}

// A TF32 sum is the TF32 convolutions and GEMMs and the FP32 batch norm: the TF32 batch norm,
// which the GPU refuses, is not part of it.
TEST(Aggregate, Tf32SumTakesTheFp32MemoryBoundPoints) {
  std::vector<Point> points = tiny_bn_points("fp32");
  for (Point p : tiny_bn_points("tf32", Status::unsupported)) {
    if (p.timing) p.timing->median_s /= 2;  // TF32's matrix products: half FP32's (test data)
    points.push_back(p);
  }
  const auto a = aggregate(points, {tiny_bn_model()}, {});
  const ModelResult& fp32 = find(a, PassSet::fwd, 1, "fp32");
  const ModelResult& tf32 = find(a, PassSet::fwd, 1, "tf32");
  ASSERT_EQ(fp32.status, "ok");
  ASSERT_EQ(tf32.status, "ok") << tf32.reason;
  EXPECT_DOUBLE_EQ(*fp32.time_ms, 8.5 + 2 * 0.5);
  EXPECT_DOUBLE_EQ(*tf32.time_ms, 8.5 / 2 + 2 * 0.5);
  const std::map<std::string, std::string> tf32_layers{
      {"conv", "tf32"}, {"linear", "tf32"}, {"batch_norm", "fp32"}};
  EXPECT_EQ(tf32.layer_precisions, tf32_layers);
  EXPECT_EQ(to_json(tf32)["layer_precisions"], nlohmann::json(tf32_layers));
  for (const auto& [kind, precision] : fp32.layer_precisions) EXPECT_EQ(precision, "fp32") << kind;
}

// FP8 sums take the BF16 memory-bound points.
TEST(Aggregate, Fp8SumTakesTheBf16MemoryBoundPoints) {
  std::vector<Point> points = tiny_bn_points("bf16");
  for (Point p : tiny_bn_points("fp8", Status::unsupported)) points.push_back(p);
  const ModelResult fp8 = find(aggregate(points, {tiny_bn_model()}, {}), PassSet::fwd, 1, "fp8");
  ASSERT_EQ(fp8.status, "ok") << fp8.reason;
  EXPECT_DOUBLE_EQ(*fp8.time_ms, 8.5 + 2 * 0.5);
  EXPECT_EQ(fp8.layer_precisions.at("batch_norm"), "bf16");
  EXPECT_EQ(fp8.layer_precisions.at("conv"), "fp8");
}

// Without its substitute points a TF32 sum is not measured, and the reason names the precision
// the missing or refused point is in.
TEST(Aggregate, Tf32SumWithoutItsFp32PointsSaysWhichAreMissing) {
  const auto alone = aggregate(tiny_bn_points("tf32"), {tiny_bn_model()}, {});
  const ModelResult& missing = find(alone, PassSet::fwd, 1, "tf32");
  EXPECT_EQ(missing.status, "incomplete");
  EXPECT_EQ(missing.reason,
            "incomplete: 1 of 4 points not measured, first bn fwd (b1.bn and 1 more) in fp32");
  EXPECT_FALSE(missing.time_ms);

  std::vector<Point> points = tiny_bn_points("tf32");
  for (const Point& p : tiny_bn_points("fp32", Status::unsupported)) points.push_back(p);
  const ModelResult refused =
      find(aggregate(points, {tiny_bn_model()}, {}), PassSet::fwd, 1, "tf32");
  EXPECT_EQ(refused.status, "unsupported");
  EXPECT_EQ(refused.reason, "unsupported: bn fwd (b1.bn and 1 more) in fp32: test reason");
}

// Points planned only for another precision's sums make no sum of their own precision.
TEST(Aggregate, PointsPlannedForAnotherPrecisionHaveNoSumOfTheirOwn) {
  std::vector<Point> points = tiny_bn_points("tf32");
  Point bn = make_point("stem", "fwd", 1, "gpu:0", "fp32");
  bn.op = "bn";
  bn.timing->median_s = 0.5e-3;
  bn.notes[planned_for_note] = "tf32";
  points.push_back(bn);
  const auto a = aggregate(points, {tiny_bn_model()}, {});
  ASSERT_EQ(a.models.size(), 1u);
  EXPECT_EQ(a.models[0].precision, "tf32");
  EXPECT_EQ(a.models[0].status, "ok");
  EXPECT_DOUBLE_EQ(*a.models[0].time_ms, 8.5 + 2 * 0.5);
}

// The real H200 file (reports/reference) holds FP32, TF32 and FP16 points of ResNet-50 and
// ViT-B/16 at batch 32, its TF32 memory-bound points refused: their TF32 sums are ok now, the
// TF32 matrix products and the FP32 memory-bound points, each count x median.
TEST(Aggregate, Tf32SumsOfTheReferenceFile) {
  const std::string root = LAYERBENCH_SOURCE_DIR;
  std::ifstream in(root + "/reports/reference/gpu-check-20261204T1702Z-precisions.json");
  ASSERT_TRUE(in) << "reference file";
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<Point> points;
  for (std::size_t i = 0; i < doc["points"].size(); ++i)
    points.push_back(point_from_json(
        {doc["points"][i], "precisions.json", "points[" + std::to_string(i) + "]"}));
  const std::vector<Model> real =
      load_models({root + "/bench/models/resnet50.json", root + "/bench/models/vit_b_16.json"});
  const auto a = aggregate(points, real, {});
  for (const std::string model : {"resnet50", "vit_b_16"}) {
    double expected_ms = 0;
    for (const auto& p : doc["points"]) {
      if (p["model"] != model) continue;
      const bool matrix = p["kind"] == "conv" || p["kind"] == "linear" || p["kind"] == "bmm";
      if (p["precision"] == (matrix ? "tf32" : "fp32"))
        expected_ms += p["count"].get<int>() * p["timing"]["median_ms"].get<double>();
    }
    int tf32_sums = 0;
    for (const ModelResult& r : a.models) {
      if (r.model != model) continue;
      if (r.precision != "tf32") {
        EXPECT_EQ(r.status, "ok") << model << " " << r.precision;  // as the file says
        continue;
      }
      ++tf32_sums;
      ASSERT_EQ(r.status, "ok") << r.reason;
      EXPECT_NEAR(*r.time_ms, expected_ms, 1e-9 * expected_ms) << model;
      EXPECT_EQ(r.layer_precisions.at("conv"), "tf32");
      EXPECT_EQ(r.layer_precisions.count("batch_norm") ? r.layer_precisions.at("batch_norm")
                                                       : r.layer_precisions.at("layer_norm"),
                "fp32");
    }
    EXPECT_EQ(tf32_sums, 1) << model;
  }
}

std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> k;
  for (const auto& [key, value] : j.items()) k.insert(key);
  return k;
}

TEST(Aggregate, ASumOverContendedPointsCountsThem) {
  std::vector<Point> points = all_points(1, false);
  points[0].timing->contended = true;
  const auto a = aggregate(points, models, {});
  EXPECT_EQ(find(a, PassSet::fwd, 1).contended_points, 1);
  EXPECT_EQ(to_json(find(a, PassSet::fwd, 1))["contended_points"], 1);
  EXPECT_EQ(find(aggregate(all_points(1, false), models, {}), PassSet::fwd, 1).contended_points, 0);
}

TEST(Aggregate, ASumOverUnstablePointsCountsThem) {
  std::vector<Point> points = all_points(1, false);
  points[0].timing->unstable = true;
  points[1].timing->unstable = true;
  const auto a = aggregate(points, models, {});
  EXPECT_EQ(find(a, PassSet::fwd, 1).unstable_points, 2);
  EXPECT_EQ(to_json(find(a, PassSet::fwd, 1))["unstable_points"], 2);
  EXPECT_EQ(find(aggregate(all_points(1, false), models, {}), PassSet::fwd, 1).unstable_points, 0);
}

// Test-data telemetry: `watts` over a window of 1 s, so one run's energy is watts x its median.
DeviceTelemetry telemetry_at(double watts) {
  DeviceTelemetry t;
  t.source = "nvml";
  t.window_s = 1;
  t.energy_j = watts;
  return t;
}

// Energy = sum of count x joules per run; images per joule = batch / energy, and only when every
// point has an energy figure. A folded batch norm's energy leaves the folded estimate.
TEST(Aggregate, ImagesPerJouleSumCountTimesEachPointsEnergy) {
  Model m = tiny_model();
  Op bn = tiny_batch_norm();
  bn.after_conv = true;
  m.ops.push_back(bn);
  std::vector<Point> points = all_points(2, false, "gpu:0");
  Point bn_point = make_point("stem", "fwd", 2, "gpu:0");
  bn_point.op = "bn";
  bn_point.timing->median_s = 0.5e-3;
  points.push_back(bn_point);
  for (Point& p : points) p.telemetry = telemetry_at(100);
  points[0].telemetry->throttled = true;
  // At 100 W: 1 x 2 + 2 x 6 + 3 x 1 ms (batch 2) + 2 x 0.5 ms of batch norm = 18 ms, 1.8 J.
  const ModelResult r = find(aggregate(points, {m}, {}), PassSet::fwd, 2);
  ASSERT_EQ(r.status, "ok");
  ASSERT_TRUE(r.energy_j && r.images_per_joule);
  EXPECT_DOUBLE_EQ(*r.energy_j, 1.8);
  EXPECT_DOUBLE_EQ(*r.images_per_joule, 2 / 1.8);
  EXPECT_DOUBLE_EQ(*r.folded->images_per_joule, 2 / 1.7);
  EXPECT_EQ(r.throttled_points, 1);
  const auto j = to_json(r);
  EXPECT_DOUBLE_EQ(j["images_per_joule"].get<double>(), 2 / 1.8);
  EXPECT_DOUBLE_EQ(j["folded"]["images_per_joule"].get<double>(), 2 / 1.7);
  EXPECT_EQ(j["throttled_points"], 1);

  points[1].telemetry->energy_j.reset();  // a point without an energy figure: no sum's energy
  const ModelResult partial = find(aggregate(points, {m}, {}), PassSet::fwd, 2);
  EXPECT_FALSE(partial.energy_j);
  EXPECT_FALSE(partial.images_per_joule);
  EXPECT_FALSE(partial.folded->images_per_joule);
  EXPECT_TRUE(to_json(partial)["images_per_joule"].is_null());
}

// The sum's uncertainty: each point's (the larger of its noise and its uncertainty) weighted
// by its share of the time. tiny_model at batch 1 (test data): 1 x 1 + 2 x 3 + 3 x 0.5 ms.
TEST(Aggregate, ASumsUncertaintyIsItsPointsWeightedByTheirTime) {
  std::vector<Point> points = all_points(1, false);
  const auto set_blk = [&points](double uncertainty) {
    for (Point& p : points)
      if (p.op == "blk") p.timing->uncertainty = uncertainty;  // the 2 x 3 ms of the 8.5
  };
  for (Point& p : points) p.timing->noise = 0.01, p.timing->uncertainty = 0.01;
  set_blk(0.20);
  const ModelResult r = find(aggregate(points, models, {}), PassSet::fwd, 1);
  ASSERT_DOUBLE_EQ(*r.time_ms, 8.5);
  EXPECT_DOUBLE_EQ(*r.uncertainty, (2.5 * 0.01 + 6 * 0.20) / 8.5);
  EXPECT_TRUE(r.unstable);
  EXPECT_DOUBLE_EQ(to_json(r)["uncertainty"].get<double>(), *r.uncertainty);
  set_blk(0.05);
  const ModelResult steady = find(aggregate(points, models, {}), PassSet::fwd, 1);
  EXPECT_FALSE(steady.unstable);
  EXPECT_EQ(to_json(steady)["unstable"], false);
  set_blk(0);  // a point measured before rounds: its noise
  EXPECT_DOUBLE_EQ(*find(aggregate(points, models, {}), PassSet::fwd, 1).uncertainty, 0.01);
}

TEST(Aggregate, JsonHasExactlyTheSchemasFields) {
  std::vector<Point> points = all_points(1, false, "gpu:0");
  points.push_back(make_point("blk", "fwd", 2, "gpu:0", "fp32", Status::oom));
  const auto a = aggregate(points, models, {{"gpu:0", {{{Precision::fp32, 67}}, 80}}});
  const auto ok = to_json(find(a, PassSet::fwd, 1));
  EXPECT_EQ(keys(ok), (std::set<std::string>{"model",
                                             "title",
                                             "device",
                                             "precision",
                                             "batch",
                                             "pass",
                                             "status",
                                             "reason",
                                             "time_ms",
                                             "images_per_s",
                                             "gflop",
                                             "tflops",
                                             "peak_fraction",
                                             "time_share",
                                             "estimate",
                                             "kind_ms",
                                             "kind_share",
                                             "folded",
                                             "largest_fitting_batch",
                                             "accumulation",
                                             "label",
                                             "layer_precisions",
                                             "contended_points",
                                             "unstable_points",
                                             "uncertainty",
                                             "unstable",
                                             "throttled_points",
                                             "energy_j",
                                             "images_per_joule"}));
  EXPECT_EQ(ok["pass"], "fwd");
  EXPECT_DOUBLE_EQ(ok["time_ms"].get<double>(), 8.5);
  EXPECT_DOUBLE_EQ(ok["peak_fraction"].get<double>(), fwd_flop_per_image / 1e9 / 8.5 / 67);
  EXPECT_TRUE(ok["accumulation"].is_null());
  EXPECT_EQ(keys(ok["time_share"]), (std::set<std::string>{"conv", "linear"}));
  EXPECT_EQ(keys(ok["kind_share"]), (std::set<std::string>{"convolution", "gemm", "normalisation",
                                                           "elementwise", "pooling", "softmax"}));
  EXPECT_EQ(keys(ok["folded"]),
            (std::set<std::string>{"estimate", "folded_ops", "time_ms", "images_per_s", "tflops",
                                   "kind_ms", "kind_share", "images_per_joule"}));
  EXPECT_TRUE(ok["energy_j"].is_null());  // the test points have no telemetry
  EXPECT_TRUE(ok["images_per_joule"].is_null());
  const auto oom = to_json(find(a, PassSet::fwd, 2));
  EXPECT_TRUE(oom["time_ms"].is_null());
  EXPECT_TRUE(oom["time_share"].is_null());
  EXPECT_TRUE(oom["kind_share"].is_null());
  EXPECT_TRUE(oom["folded"].is_null());
  EXPECT_EQ(oom["largest_fitting_batch"], 1);
  EXPECT_EQ(oom["accumulation"],
            (nlohmann::json{{"batch", 1}, {"steps", 2}, {"images_per_s", 1 / 0.0085}}));
  const auto boundary = to_json(a.boundaries.at(0));
  EXPECT_EQ(boundary, (nlohmann::json{{"model", "tiny"},
                                      {"device", "gpu:0"},
                                      {"precision", "fp32"},
                                      {"pass", "fwd"},
                                      {"largest_fitting_batch", 1},
                                      {"first_oom_batch", 2},
                                      {"memory_limit_bytes", 80}}));
}

}  // namespace
}  // namespace lb
