// The oneDNN CPU backend's memory-bound primitives (batch and layer norm, relu, gelu_erf, add,
// max and average pooling, softmax), forward and backward, against the double-precision
// reference, cold and warm, heuristic and autotuned; 16-bit precisions run or refused.
#include <gtest/gtest.h>

#include <map>

#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/os/platform.hpp"
#include "kernels/onednn/onednn_backend.hpp"
#include "kernels/onednn/onednn_memory_bound_ops.hpp"
#include "tests/unit/page_offsets_support.hpp"

namespace lb {
namespace {

Problem memory_problem(MemoryOp op, std::vector<std::int64_t> dims, Pass pass,
                       Precision precision = Precision::fp32) {
  MemoryShape s;
  s.op = op;
  s.dims = std::move(dims);
  Problem p;
  p.op = MemoryProblem{s, pass};
  p.precision = precision;
  return p;
}

Problem pooling(MemoryOp op, std::int64_t window, std::int64_t stride, std::int64_t pad, Pass pass,
                Precision precision = Precision::fp32) {
  auto p = memory_problem(op, {2, 3, 9, 9}, pass, precision);
  auto m = p.memory();
  m.shape.window = window, m.shape.stride = stride, m.shape.pad = pad;
  p.op = m;
  return p;
}

// Every kind and pass, on small shapes with odd sizes; one output larger than the validator's
// full limit (checked on a sample).
std::vector<Problem> problems(Precision precision = Precision::fp32) {
  std::vector<Problem> all;
  for (Pass pass : {Pass::fwd, Pass::bwd_data}) {
    all.push_back(memory_problem(MemoryOp::batch_norm, {2, 8, 5, 6}, pass, precision));
    all.push_back(memory_problem(MemoryOp::layer_norm, {2, 7, 40}, pass, precision));
    all.push_back(memory_problem(MemoryOp::relu, {3, 50}, pass, precision));
    all.push_back(memory_problem(MemoryOp::gelu_erf, {3, 50}, pass, precision));
    all.push_back(memory_problem(MemoryOp::add, {2, 6, 10}, pass, precision));
    all.push_back(memory_problem(MemoryOp::softmax, {2, 3, 17, 17}, pass, precision));
    all.push_back(pooling(MemoryOp::max_pool, 3, 2, 1, pass, precision));
    // Padding left out of the mean; then a global one, as ResNet's avgpool.
    all.push_back(pooling(MemoryOp::avg_pool, 3, 2, 1, pass, precision));
    all.push_back(pooling(MemoryOp::avg_pool, 9, 1, 0, pass, precision));
  }
  all.push_back(memory_problem(MemoryOp::batch_norm, {2, 8, 5, 6}, Pass::fwd_training, precision));
  auto broadcast = memory_problem(MemoryOp::add, {4, 5, 6}, Pass::fwd, precision);
  std::get<MemoryProblem>(broadcast.op).shape.broadcast = true;
  all.push_back(broadcast);
  all.push_back(memory_problem(MemoryOp::gelu_erf, {2, 10000}, Pass::bwd_data, precision));
  return all;
}

class OnednnMemoryOpsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> backend = onednn::make_backend(0);

  Validation run(const Problem& p, CacheMode cache, AlgoChoice algo,
                 std::map<std::string, std::string>* notes = nullptr) {
    const auto inputs = make_inputs(p, 5);
    CaseOptions options;
    options.cache = cache, options.algo = algo;
    auto c = backend->prepare(p, inputs, options);
    for (int i = 0; i < 3; ++i) EXPECT_GT(c->run_timed(), 0.0) << describe(p);
    EXPECT_FALSE(c->implementation().empty());
    if (notes)
      for (const auto& [k, v] : c->notes()) (*notes)[k] = v;
    return validate(p, inputs, c->output(), p.precision);
  }
};

TEST_F(OnednnMemoryOpsTest, EveryKindAndPassMatchesTheReferenceColdAndWarm) {
  for (const auto& p : problems())
    for (CacheMode cache : {CacheMode::cold, CacheMode::warm}) {
      ASSERT_FALSE(backend->unsupported_reason(p).has_value()) << describe(p);
      const auto v = run(p, cache, AlgoChoice::heuristic);
      EXPECT_TRUE(v.passed) << describe(p) << " " << name(p.memory().pass) << " rel_l2 "
                            << v.rel_l2;
      EXPECT_LT(v.rel_l2, 1e-5) << describe(p) << " " << name(p.memory().pass);
    }
}

TEST_F(OnednnMemoryOpsTest, AutotunedBackwardsWithAPrologueAreCorrect) {
  // These read what an untimed forward derived (statistics, argmax, softmax's output).
  for (const auto& p : {memory_problem(MemoryOp::batch_norm, {2, 8, 5, 6}, Pass::bwd_data),
                        memory_problem(MemoryOp::softmax, {2, 3, 17, 17}, Pass::bwd_data),
                        pooling(MemoryOp::max_pool, 3, 2, 1, Pass::bwd_data)}) {
    std::map<std::string, std::string> notes;
    const auto v = run(p, CacheMode::cold, AlgoChoice::autotune, &notes);
    EXPECT_TRUE(v.passed) << describe(p) << " rel_l2 " << v.rel_l2;
    EXPECT_EQ(notes["choice"], "autotune");
    EXPECT_EQ(notes["algorithm"], std::string(name(p.memory().shape.op)));
    EXPECT_GT(std::stoull(notes["evicted_bytes"]), 0u) << "cold mode evicts the operands";
  }
}

TEST_F(OnednnMemoryOpsTest, NoTwoOperandsStartAtTheSameOffsetWithinAPage) {
  // Whole-page activations (64 x 8 x 8 floats: 4 pages), as every ResNet-50 one is: packed back
  // to back, each operand would start where the one before did within its page. Each case is
  // prepared twice, as rounds do: the second gets the first one's memory again.
  const std::vector<Problem> cases = {
      memory_problem(MemoryOp::batch_norm, {2, 64, 8, 8}, Pass::fwd),
      memory_problem(MemoryOp::batch_norm, {2, 64, 8, 8}, Pass::fwd_training),
      memory_problem(MemoryOp::batch_norm, {2, 64, 8, 8}, Pass::bwd_data),
      memory_problem(MemoryOp::relu, {2, 64, 8, 8}, Pass::fwd),
      memory_problem(MemoryOp::add, {2, 64, 8, 8}, Pass::fwd)};
  for (const Problem& p : cases)
    for (CacheMode cache : {CacheMode::cold, CacheMode::warm})
      for (int round = 0; round < 2; ++round) {
        CaseOptions options;
        options.cache = cache;
        auto c = backend->prepare(p, make_inputs(p, 5), options);
        const auto pairs = c->notes();
        std::map<std::string, std::string> notes(pairs.begin(), pairs.end());
        expect_no_two_aliased(notes["page_offsets"],
                              describe(p) + " " + std::string(name(p.memory().pass)));
      }
}

TEST_F(OnednnMemoryOpsTest, ALargeCaseSaysItsOperandsLieOnHugePages) {
  const auto mode = platform::transparent_huge_page_mode();
  if (!mode || *mode == "never")
    GTEST_SKIP() << "the kernel gives no transparent huge pages (mode: " << mode.value_or("none")
                 << ")";
  // Three operands of 2 MiB: an arena of huge pages, new or kept from an earlier case. All of
  // it in a release build; 75% in an ASan build, whose allocator maps its blocks its own way.
  const Problem p = memory_problem(MemoryOp::add, {8, 64, 32, 32}, Pass::fwd);
  auto c = backend->prepare(p, make_inputs(p, 5), CaseOptions{});
  const auto pairs = c->notes();
  const std::map<std::string, std::string> notes(pairs.begin(), pairs.end());
  EXPECT_EQ(notes.at("pages").rfind("2 MiB", 0), 0u) << describe(p) << ": " << notes.at("pages");
}

TEST_F(OnednnMemoryOpsTest, SixteenBitPrecisionsAreRunOrRefusedWithOneDnnsReason) {
  for (Precision precision : {Precision::bf16, Precision::fp16})
    for (const auto& p : problems(precision)) {
      if (const auto reason = backend->unsupported_reason(p)) {
        EXPECT_NE(reason->find("oneDNN"), std::string::npos) << *reason;
        EXPECT_THROW(backend->prepare(p, make_inputs(p, 8), CaseOptions{}), Unsupported);
      } else {
        const auto v = run(p, CacheMode::warm, AlgoChoice::heuristic);
        EXPECT_TRUE(v.passed) << describe(p) << " " << name(precision) << " rel_l2 " << v.rel_l2;
      }
    }
}

Problem one_by_one_conv(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, Pass pass) {
  ConvShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.k = c, s.r = 1, s.s = 1;
  Problem p;
  p.op = ConvProblem{s, pass};
  return p;
}

TEST_F(OnednnMemoryOpsTest, ImageOpsRunInTheLayoutOfTheirConvolutionsAndStillValidate) {
  // The forward points run where an inference convolution leaves its output; the training
  // passes where a training step's convolutions keep it (the backward data pass's dy, as a
  // training forward wrote it). On an AVX-512 CPU oneDNN 3.2 chooses nhwc for the one and
  // nChw16c for the other; the test holds whatever it chooses.
  std::map<std::string, std::string> inference_notes, training_notes;
  run(one_by_one_conv(2, 32, 7, 7, Pass::fwd), CacheMode::warm, AlgoChoice::heuristic,
      &inference_notes);
  run(one_by_one_conv(2, 32, 7, 7, Pass::bwd_data), CacheMode::warm, AlgoChoice::heuristic,
      &training_notes);
  ASSERT_FALSE(inference_notes["layout"].empty());
  ASSERT_FALSE(training_notes["layout"].empty());
  auto max_pool = pooling(MemoryOp::max_pool, 3, 2, 1, Pass::bwd_data);
  std::get<MemoryProblem>(max_pool.op).shape.dims = {2, 32, 7, 7};
  for (const auto& p : {memory_problem(MemoryOp::batch_norm, {2, 32, 7, 7}, Pass::fwd),
                        memory_problem(MemoryOp::batch_norm, {2, 32, 7, 7}, Pass::fwd_training),
                        memory_problem(MemoryOp::batch_norm, {2, 32, 7, 7}, Pass::bwd_data),
                        memory_problem(MemoryOp::relu, {2, 32, 7, 7}, Pass::fwd),
                        memory_problem(MemoryOp::add, {2, 32, 7, 7}, Pass::fwd), max_pool}) {
    std::map<std::string, std::string> notes;
    const auto v = run(p, CacheMode::cold, AlgoChoice::heuristic, &notes);
    EXPECT_TRUE(v.passed) << describe(p) << " rel_l2 " << v.rel_l2;
    const bool inference = p.memory().pass == Pass::fwd;
    EXPECT_EQ(notes["layout"], (inference ? inference_notes : training_notes)["layout"])
        << describe(p) << " " << name(p.memory().pass);
  }
  // Attention's softmax and the tokens' layer norm stay in the GEMMs' row-major layout.
  std::map<std::string, std::string> notes;
  run(memory_problem(MemoryOp::softmax, {2, 3, 17, 17}, Pass::fwd), CacheMode::warm,
      AlgoChoice::heuristic, &notes);
  EXPECT_EQ(notes["layout"], "nchw");
  run(memory_problem(MemoryOp::layer_norm, {2, 7, 40}, Pass::fwd), CacheMode::warm,
      AlgoChoice::heuristic, &notes);
  EXPECT_EQ(notes["layout"], "row-major");
}

Problem in_place(Problem p) {
  std::get<MemoryProblem>(p.op).shape.in_place = true;
  return p;
}

TEST_F(OnednnMemoryOpsTest, InPlaceOpsOverwriteTheirInputAndValidateAfterManyRuns) {
  // a += b run again and again leaves a + n b in the buffer; the output validated is one run's
  // on the first input restored, and the bytes evicted are the operands', the output being one
  // of them. ReLU and add, image (the model's layout) and row-major, broadcast too.
  auto broadcast = in_place(memory_problem(MemoryOp::add, {4, 5, 6}, Pass::fwd));
  std::get<MemoryProblem>(broadcast.op).shape.broadcast = true;
  for (const auto& p : {in_place(memory_problem(MemoryOp::add, {2, 32, 7, 7}, Pass::fwd)),
                        in_place(memory_problem(MemoryOp::relu, {2, 32, 7, 7}, Pass::fwd)),
                        in_place(memory_problem(MemoryOp::relu, {3, 50}, Pass::fwd)), broadcast}) {
    ASSERT_TRUE(runs_in_place(p.memory()));
    std::map<std::string, std::string> notes;
    const auto v = run(p, CacheMode::cold, AlgoChoice::autotune, &notes);
    EXPECT_TRUE(v.passed) << describe(p) << " rel_l2 " << v.rel_l2;
    EXPECT_LT(v.rel_l2, 1e-5) << describe(p);
    const auto dims = tensor_dims(p);
    double bytes = 0;
    for (const auto& d : dims.inputs) bytes += 4.0 * static_cast<double>(element_count(d));
    EXPECT_EQ(std::stod(notes["evicted_bytes"]), bytes) << describe(p) << ": inputs only";
  }
  // Out of place the output is evicted besides the inputs.
  std::map<std::string, std::string> notes;
  run(memory_problem(MemoryOp::relu, {3, 50}, Pass::fwd), CacheMode::cold, AlgoChoice::heuristic,
      &notes);
  EXPECT_EQ(std::stod(notes["evicted_bytes"]), 2 * 4.0 * 150);
}

TEST_F(OnednnMemoryOpsTest, AnInPlaceOpsBackwardIsNotInPlace) {
  const auto p = in_place(memory_problem(MemoryOp::relu, {3, 50}, Pass::bwd_data));
  EXPECT_FALSE(runs_in_place(p.memory()));
  const auto v = run(p, CacheMode::warm, AlgoChoice::heuristic);
  EXPECT_TRUE(v.passed) << v.rel_l2;
}

TEST(OnednnLayoutName, NamesPlainPermutedAndBlockedLayouts) {
  using dnnl::memory;
  const memory::dims image{2, 32, 5, 6};
  const auto f32 = memory::data_type::f32;
  EXPECT_EQ(onednn::layout_name(memory::desc(image, f32, memory::format_tag::nchw)), "nchw");
  EXPECT_EQ(onednn::layout_name(memory::desc(image, f32, memory::format_tag::nhwc)), "nhwc");
  EXPECT_EQ(onednn::layout_name(memory::desc(image, f32, memory::format_tag::nChw16c)), "nChw16c");
  EXPECT_EQ(onednn::layout_name(memory::desc({3, 4, 5}, f32, memory::format_tag::abc)),
            "row-major");
  EXPECT_EQ(onednn::layout_name(memory::desc({3, 4}, f32, memory::format_tag::ba)), "ba");
}

}  // namespace
}  // namespace lb
