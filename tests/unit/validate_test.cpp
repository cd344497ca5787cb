// The validator accepts the right answer and catches wrong ones, for every pass: one perturbed
// element, a transposed weight (conv: r and s swapped; GEMM: B read transposed), NaN/Inf.
#include "harness/check/validate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "harness/check/reference.hpp"
#include "harness/measure/inputs.hpp"

namespace lb {
namespace {

HostTensor as_output(const Problem& p, const std::vector<double>& values) {
  HostTensor t{tensor_dims(p).output, {}};
  for (double v : values) t.data.push_back(static_cast<float>(v));
  return t;
}

// Filters [K][C][R][S] with R == S read as [K][C][S][R].
std::vector<float> swap_rs(const std::vector<float>& w, std::int64_t r) {
  std::vector<float> out(w.size());
  for (std::size_t base = 0; base < w.size(); base += static_cast<std::size_t>(r * r))
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < r; ++j) out[base + j * r + i] = w[base + i * r + j];
  return out;
}

ConvShape small_conv() {
  ConvShape s;
  s.n = 2, s.c = 4, s.h = 6, s.w = 5, s.k = 4, s.r = 3, s.s = 3;
  s.stride_h = 2, s.pad_h = s.pad_w = 1, s.groups = 2;
  return s;
}

struct PassCase {
  std::string name;
  Problem problem;
};

std::vector<PassCase> every_pass() {
  std::vector<PassCase> cases;
  for (Pass pass : layer_passes) {
    Problem p;
    p.op = ConvProblem{small_conv(), pass};
    cases.push_back({"conv " + std::string(name(pass)), p});
  }
  for (auto [ta, tb, label] : {std::tuple{false, false, "NN"}, std::tuple{false, true, "NT"},
                               std::tuple{true, false, "TN"}}) {
    Problem p;
    p.op = GemmProblem{GemmShape{2, 7, 6, 6, ta, tb}};
    cases.push_back({std::string("gemm ") + label, p});
  }
  return cases;
}

// What a backend with the weights transposed would return.
HostTensor transposed_weight_answer(const Problem& p, const std::vector<HostTensor>& inputs) {
  if (!p.is_conv()) {
    Problem wrong = p;
    GemmShape g = p.gemm().shape;  // n == k: B's storage read the other way round
    g.trans_b = !g.trans_b;
    wrong.op = GemmProblem{g};
    return as_output(p, reference_all(wrong, inputs));
  }
  const auto& c = p.conv();
  if (c.pass == Pass::bwd_weights) {
    HostTensor dw = as_output(p, reference_all(p, inputs));
    dw.data = swap_rs(dw.data, c.shape.r);
    return dw;
  }
  auto swapped = inputs;  // fwd {x, w}, bwd_data {dy, w}
  swapped[1].data = swap_rs(inputs[1].data, c.shape.r);
  return as_output(p, reference_all(p, swapped));
}

TEST(Validate, AcceptsTheRightAnswerForEveryPass) {
  for (const auto& c : every_pass()) {
    const auto inputs = make_inputs(c.problem, 11);
    const auto v = validate(
        c.problem, inputs, as_output(c.problem, reference_all(c.problem, inputs)), Precision::fp32);
    EXPECT_TRUE(v.passed) << c.name << " rel_l2 " << v.rel_l2;
    EXPECT_LT(v.rel_l2, 1e-6) << c.name;  // only float rounding of the stored output
    EXPECT_EQ(v.tolerance, 1e-4);
    EXPECT_EQ(v.checked_elements, v.total_elements) << c.name;
    EXPECT_EQ(v.total_elements, element_count(tensor_dims(c.problem).output));
  }
}

TEST(Validate, CatchesOnePerturbedElementForEveryPass) {
  for (const auto& c : every_pass()) {
    const auto inputs = make_inputs(c.problem, 12);
    auto out = as_output(c.problem, reference_all(c.problem, inputs));
    out.data[out.data.size() / 3] += 0.5f;
    const auto v = validate(c.problem, inputs, out, Precision::fp32);
    EXPECT_FALSE(v.passed) << c.name << " rel_l2 " << v.rel_l2;
    EXPECT_NEAR(v.max_abs, 0.5, 1e-5) << c.name;
  }
}

TEST(Validate, CatchesATransposedWeightForEveryPass) {
  for (const auto& c : every_pass()) {
    const auto inputs = make_inputs(c.problem, 13);
    const auto v =
        validate(c.problem, inputs, transposed_weight_answer(c.problem, inputs), Precision::fp32);
    EXPECT_FALSE(v.passed) << c.name;
    EXPECT_GT(v.rel_l2, 0.1) << c.name;  // a wrong answer is far off, not borderline
  }
}

TEST(Validate, NanOrInfFailsEvenWhereTheRestIsRight) {
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    const auto c = every_pass().front();
    const auto inputs = make_inputs(c.problem, 14);
    auto out = as_output(c.problem, reference_all(c.problem, inputs));
    out.data[0] = bad;
    const auto v = validate(c.problem, inputs, out, Precision::fp32);
    EXPECT_FALSE(v.passed);
    EXPECT_TRUE(std::isinf(v.rel_l2));
  }
}

TEST(Validate, ToleranceFollowsThePrecision) {
  // A 1% error fails FP32 and TF32 but passes the 16-bit tolerance of 2e-2.
  const auto c = every_pass().front();
  const auto inputs = make_inputs(c.problem, 15);
  auto out = as_output(c.problem, reference_all(c.problem, inputs));
  for (float& v : out.data) v *= 1.01f;
  EXPECT_FALSE(validate(c.problem, inputs, out, Precision::fp32).passed);
  EXPECT_FALSE(validate(c.problem, inputs, out, Precision::tf32).passed);
  const auto v = validate(c.problem, inputs, out, Precision::bf16);
  EXPECT_TRUE(v.passed);
  EXPECT_NEAR(v.rel_l2, 0.01, 1e-4);
  EXPECT_EQ(v.tolerance, 2e-2);
}

TEST(Validate, LargeOutputsAreSampledAtFixedDistinctSpreadIndices) {
  const std::int64_t total = 1'000'003;
  const auto a = validation_indices(total);
  EXPECT_EQ(a, validation_indices(total));  // fixed seed
  ASSERT_EQ(static_cast<std::int64_t>(a.size()), validate_sample_size);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_GE(a.front(), 0);
  EXPECT_LT(a.back(), total);
  EXPECT_GT(a.back(), total - total / validate_sample_size - 1);  // the last stratum is covered
  EXPECT_EQ(static_cast<std::int64_t>(validation_indices(validate_full_limit).size()),
            validate_full_limit);
}

TEST(Validate, SampledValidationRecordsItsCountAndCatchesAWrongSampledElement) {
  Problem p;
  p.op = GemmProblem{GemmShape{1, 200, 100, 8, false, true}};  // 20000 > 16384 outputs
  const auto inputs = make_inputs(p, 16);
  HostTensor out{tensor_dims(p).output, std::vector<float>(20000)};
  for (std::int64_t i : validation_indices(20000))
    out.data[i] = static_cast<float>(reference_at(p, inputs, i));
  auto v = validate(p, inputs, out, Precision::fp32);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.checked_elements, validate_sample_size);
  EXPECT_EQ(v.total_elements, 20000);
  out.data[validation_indices(20000)[100]] += 0.5f;
  EXPECT_FALSE(validate(p, inputs, out, Precision::fp32).passed);
}

TEST(Validate, ANanOutsideTheSampleFailsToo) {
  // An element the library never wrote keeps the NaN the GPU backend poisons outputs with.
  Problem p;
  p.op = GemmProblem{GemmShape{1, 200, 100, 8, false, true}};
  const auto inputs = make_inputs(p, 17);
  HostTensor out{tensor_dims(p).output, std::vector<float>(20000)};
  for (std::int64_t i = 0; i < 20000; ++i)
    out.data[i] = static_cast<float>(reference_at(p, inputs, i));
  const auto sampled = validation_indices(20000);
  const std::int64_t unsampled = sampled[0] == 0 ? sampled[0] + 1 : 0;
  ASSERT_FALSE(std::binary_search(sampled.begin(), sampled.end(), unsampled));
  EXPECT_TRUE(validate(p, inputs, out, Precision::fp32).passed);
  out.data[unsampled] = std::numeric_limits<float>::quiet_NaN();
  const auto v = validate(p, inputs, out, Precision::fp32);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.non_finite_elements, 1);
  EXPECT_LT(v.rel_l2, 1e-6);  // the sampled error alone would have passed
}

TEST(Validate, RejectsAnOutputOfTheWrongShape) {
  const auto c = every_pass().front();
  const auto inputs = make_inputs(c.problem, 17);
  EXPECT_THROW(validate(c.problem, inputs, HostTensor{{1, 2}, {0, 0}}, Precision::fp32),
               std::invalid_argument);
}

}  // namespace
}  // namespace lb
