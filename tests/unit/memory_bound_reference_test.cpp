// The double-precision reference of the memory-bound problems: hand-computed forwards, and
// every backward checked against central finite differences of its forward (the gradient of
// L(x) = sum(dy . f(x)) is the backward's dx).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "harness/check/reference.hpp"
#include "harness/check/reference_memory_bound.hpp"
#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"

namespace lb {
namespace {

Problem memory_problem(MemoryOp op, std::vector<std::int64_t> dims, Pass pass) {
  MemoryShape s;
  s.op = op;
  s.dims = std::move(dims);
  Problem p;
  p.op = MemoryProblem{s, pass};
  return p;
}

Problem with_pass(Problem p, Pass pass) {
  auto m = p.memory();
  m.pass = pass;
  p.op = m;
  return p;
}

HostTensor tensor(std::vector<std::int64_t> dims, std::vector<float> data) {
  return HostTensor{std::move(dims), std::move(data)};
}

TEST(MemoryReference, HandComputedForwards) {
  auto relu = memory_problem(MemoryOp::relu, {1, 3}, Pass::fwd);
  EXPECT_EQ(reference_all(relu, {tensor({1, 3}, {-1, 0.5f, 2})}), (std::vector<double>{0, 0.5, 2}));

  // gelu(1) = 0.5 (1 + erf(1 / sqrt 2)) = 0.841344746...
  auto gelu = memory_problem(MemoryOp::gelu_erf, {1, 1}, Pass::fwd);
  EXPECT_NEAR(reference_at(gelu, {tensor({1, 1}, {1})}, 0), 0.8413447460685429, 1e-15);

  // softmax(0, ln 3) = (1/4, 3/4)
  auto softmax = memory_problem(MemoryOp::softmax, {1, 2}, Pass::fwd);
  const auto s = reference_all(softmax, {tensor({1, 2}, {0, std::log(3.0f)})});
  EXPECT_NEAR(s[0], 0.25, 1e-7);
  EXPECT_NEAR(s[1], 0.75, 1e-7);

  // layer norm of (1, 3): mean 2, variance 1, so (x - 2) / sqrt(1 + 1e-6), times gamma plus beta.
  auto ln = memory_problem(MemoryOp::layer_norm, {1, 2}, Pass::fwd);
  const auto l =
      reference_all(ln, {tensor({1, 2}, {1, 3}), tensor({2}, {2, 1}), tensor({2}, {0.5f, 0})});
  EXPECT_NEAR(l[0], 2 * -1 / std::sqrt(1 + 1e-6) + 0.5, 1e-12);
  EXPECT_NEAR(l[1], 1 / std::sqrt(1 + 1e-6), 1e-12);

  // batch norm, inference: channel 1 has mean 1, variance 4 - 1e-5, gamma 3, beta -1.
  auto bn = memory_problem(MemoryOp::batch_norm, {1, 2, 1, 1}, Pass::fwd);
  const auto b =
      reference_all(bn, {tensor({1, 2, 1, 1}, {5, 7}), tensor({2}, {0, 1}),
                         tensor({2}, {1, 4 - 1e-5f}), tensor({2}, {1, 3}), tensor({2}, {0, -1})});
  EXPECT_NEAR(b[0], 5 / std::sqrt(1 + 1e-5), 1e-9);
  EXPECT_NEAR(b[1], 3 * (7 - 1) / 2.0 - 1, 1e-5);

  // batch norm, training: the batch's own statistics, per channel over N, H and W. Channel 0
  // holds 1, 3 (image 0) and 5, 7 (image 1): mean 4, biased variance 5; channel 1 holds 10, 10
  // and 20, 20: mean 15, variance 25. gamma (2, 1), beta (0.5, -1).
  auto bn_training = memory_problem(MemoryOp::batch_norm, {2, 2, 1, 2}, Pass::fwd_training);
  const auto t = reference_all(bn_training, {tensor({2, 2, 1, 2}, {1, 3, 10, 10, 5, 7, 20, 20}),
                                             tensor({2}, {2, 1}), tensor({2}, {0.5f, -1})});
  EXPECT_NEAR(t[0], 2 * (1 - 4) / std::sqrt(5 + 1e-5) + 0.5, 1e-9);
  EXPECT_NEAR(t[2], (10 - 15) / std::sqrt(25 + 1e-5) - 1, 1e-9);
  EXPECT_NEAR(t[5], 2 * (7 - 4) / std::sqrt(5 + 1e-5) + 0.5, 1e-9);
  EXPECT_NEAR(t[7], (20 - 15) / std::sqrt(25 + 1e-5) - 1, 1e-9);

  // add, broadcast: the second operand (one image) is added to every image.
  auto add = memory_problem(MemoryOp::add, {2, 2}, Pass::fwd);
  auto broadcast = add;
  std::get<MemoryProblem>(broadcast.op).shape.broadcast = true;
  EXPECT_EQ(reference_all(broadcast, {tensor({2, 2}, {1, 2, 3, 4}), tensor({1, 2}, {10, 20})}),
            (std::vector<double>{11, 22, 13, 24}));
  EXPECT_EQ(reference_all(add, {tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 2}, {1, 1, 1, 1})}),
            (std::vector<double>{2, 3, 4, 5}));
}

TEST(MemoryReference, HandComputedPooling) {
  // 1x1x3x3, window 2, stride 2, pad 1: outputs (0,0) sees x[0][0] only, (1,1) sees x[1..2][1..2].
  //   x = 1 2 3
  //       4 5 6
  //       7 8 9
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto max = memory_problem(MemoryOp::max_pool, {1, 1, 3, 3}, Pass::fwd);
  auto& ms = std::get<MemoryProblem>(max.op).shape;
  ms.window = 2, ms.stride = 2, ms.pad = 1;
  EXPECT_EQ(reference_all(max, {tensor({1, 1, 3, 3}, x)}), (std::vector<double>{1, 3, 7, 9}));
  auto avg = max;
  std::get<MemoryProblem>(avg.op).shape.op = MemoryOp::avg_pool;
  // Padding is left out of the divisor: (1), (2+3)/2, (4+7)/2, (5+6+8+9)/4.
  EXPECT_EQ(reference_all(avg, {tensor({1, 1, 3, 3}, x)}), (std::vector<double>{1, 2.5, 5.5, 7}));
  // Backward of the average: each dy spreads evenly over its window's in-bounds elements.
  const auto dx =
      reference_all(with_pass(avg, Pass::bwd_data), {tensor({1, 1, 2, 2}, {4, 2, 2, 4})});
  EXPECT_EQ(dx, (std::vector<double>{4, 1, 1, 1, 1, 1, 1, 1, 1}));
}

// Max-pool backward with tied maxima: 1x1x2x3 input, window 2, stride 1, no padding, so outputs
// (0,0) and (0,1) see columns 0-1 and 1-2 of both rows.
//   x = 5 5 1      window (0,0): maxima x[0][0], x[0][1] tie   dy(0,0) = 2
//       0 0 7      window (0,1): maximum x[1][2] alone          dy(0,1) = 3
TEST(MemoryReference, MaxPoolBackwardAcceptsAnyTiedMaximum) {
  auto bwd = memory_problem(MemoryOp::max_pool, {1, 1, 2, 3}, Pass::bwd_data);
  auto& ms = std::get<MemoryProblem>(bwd.op).shape;
  ms.window = 2, ms.stride = 1, ms.pad = 0;
  const std::vector<HostTensor> in{tensor({1, 1, 2, 3}, {5, 5, 1, 0, 0, 7}),
                                   tensor({1, 1, 1, 2}, {2, 3})};
  // The reference's own convention: the first maximum in scan order takes the gradient.
  EXPECT_EQ(reference_all(bwd, in), (std::vector<double>{2, 0, 0, 0, 0, 3}));
  const MaxPoolGradient tied = max_pool_gradient(ms, in, 1);
  EXPECT_EQ(tied.certain, 0);
  EXPECT_EQ(tied.tied, (std::vector<double>{2}));
  EXPECT_EQ(tied.closest_to(1.9), 2);
  EXPECT_EQ(tied.closest_to(0.1), 0);
  EXPECT_EQ(max_pool_gradient(ms, in, 5).certain, 3);
  EXPECT_TRUE(max_pool_gradient(ms, in, 5).tied.empty());

  // A backend that gives the tied window's gradient to the second maximum is right...
  HostTensor second{{1, 1, 2, 3}, {0, 2, 0, 0, 0, 3}};
  EXPECT_TRUE(validate(bwd, in, second, Precision::bf16).passed);
  EXPECT_EQ(reference_near(bwd, in, 1, 2.0), 2);
  // ...one that loses the unique maximum's gradient, or the tied one's, is not.
  HostTensor lost_unique{{1, 1, 2, 3}, {2, 0, 0, 0, 0, 0}};
  EXPECT_FALSE(validate(bwd, in, lost_unique, Precision::bf16).passed);
  HostTensor moved_off_the_maxima{{1, 1, 2, 3}, {0, 0, 0, 2, 0, 3}};
  EXPECT_FALSE(validate(bwd, in, moved_off_the_maxima, Precision::bf16).passed);
  // Window by window: each element alone may refuse the tied gradient, but the window must give it
  // to exactly one maximum, so dropping it or giving it to both fails.
  HostTensor dropped{{1, 1, 2, 3}, {0, 0, 0, 0, 0, 3}};
  const Validation dropped_check = validate(bwd, in, dropped, Precision::bf16);
  EXPECT_FALSE(dropped_check.passed);
  EXPECT_EQ(dropped_check.misassigned_windows, 1);
  HostTensor doubled{{1, 1, 2, 3}, {2, 2, 0, 0, 0, 3}};
  EXPECT_FALSE(validate(bwd, in, doubled, Precision::bf16).passed);
  EXPECT_EQ(validate(bwd, in, second, Precision::bf16).misassigned_windows, 0);
  EXPECT_EQ(max_pool_misassigned_windows(ms, in, dropped.data, {1}), 1);
  EXPECT_EQ(max_pool_misassigned_windows(ms, in, second.data, {0, 1, 5}), 0);
  // The forward has one right answer however the maxima tie.
  EXPECT_EQ(reference_near(with_pass(bwd, Pass::fwd), {in[0]}, 0, 4.0), 5);
}

// dx from the reference's backward against (L(x + h) - L(x - h)) / 2h, L = sum(dy . fwd(x)),
// at every element of a small problem. `fwd_inputs(x)` builds the forward's inputs from x.
void expect_gradient(const Problem& bwd,
                     const std::function<std::vector<HostTensor>(const HostTensor& x)>& fwd_inputs,
                     int dy_input = 1) {
  const auto inputs = make_inputs(bwd, 7);
  const Problem fwd = with_pass(bwd, Pass::fwd);
  const auto& dy = inputs[dy_input].data;
  const auto loss = [&](const HostTensor& x) {
    const auto y = reference_all(fwd, fwd_inputs(x));
    double sum = 0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += dy[i] * y[i];
    return sum;
  };
  const auto dx = reference_all(bwd, inputs);
  const double h = 1e-3;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    HostTensor plus = inputs[0], minus = inputs[0];
    plus.data[i] += static_cast<float>(h), minus.data[i] -= static_cast<float>(h);
    const double step = double(plus.data[i]) - double(minus.data[i]);  // h in float, exactly
    EXPECT_NEAR(dx[i], (loss(plus) - loss(minus)) / step, 2e-3)
        << name(bwd.memory().shape.op) << " element " << i;
  }
}

TEST(MemoryReference, BackwardsAreTheGradientsOfTheirForwards) {
  for (MemoryOp op : {MemoryOp::relu, MemoryOp::gelu_erf, MemoryOp::softmax}) {
    expect_gradient(memory_problem(op, {2, 5}, Pass::bwd_data),
                    [](const HostTensor& x) { return std::vector<HostTensor>{x}; });
  }
  auto max = memory_problem(MemoryOp::max_pool, {1, 2, 5, 5}, Pass::bwd_data);
  auto& ms = std::get<MemoryProblem>(max.op).shape;
  ms.window = 3, ms.stride = 2, ms.pad = 1;
  expect_gradient(max, [](const HostTensor& x) { return std::vector<HostTensor>{x}; });

  // Layer norm: gamma is the backward's third input; beta does not change the gradient.
  const auto ln = memory_problem(MemoryOp::layer_norm, {3, 6}, Pass::bwd_data);
  const auto gamma = make_inputs(ln, 7)[2];
  expect_gradient(ln, [&](const HostTensor& x) {
    return std::vector<HostTensor>{x, gamma, tensor({6}, std::vector<float>(6, 0.25f))};
  });

  // Batch norm in training normalises with the batch's own statistics: the forward here is the
  // inference formula given the statistics of the (perturbed) x, per channel over N, H, W.
  const auto bn = memory_problem(MemoryOp::batch_norm, {2, 3, 2, 2}, Pass::bwd_data);
  const auto bn_gamma = make_inputs(bn, 7)[2];
  expect_gradient(bn, [&](const HostTensor& x) {
    std::vector<float> mean(3), variance(3);
    for (int c = 0; c < 3; ++c) {
      double sum = 0, squares = 0;
      for (int n = 0; n < 2; ++n)
        for (int i = 0; i < 4; ++i) sum += x.data[(n * 3 + c) * 4 + i];
      const double m = sum / 8;
      for (int n = 0; n < 2; ++n)
        for (int i = 0; i < 4; ++i) squares += std::pow(x.data[(n * 3 + c) * 4 + i] - m, 2);
      mean[c] = static_cast<float>(m), variance[c] = static_cast<float>(squares / 8);
    }
    return std::vector<HostTensor>{x, tensor({3}, mean), tensor({3}, variance), bn_gamma,
                                   tensor({3}, {0, 0, 0})};
  });
}

TEST(MemoryReference, AddsBackwardIsTheGradientsAccumulation) {
  // Where a residual forks, the two gradients add: the same add as the forward.
  auto bwd = memory_problem(MemoryOp::add, {1, 2}, Pass::bwd_data);
  EXPECT_EQ(reference_all(bwd, {tensor({1, 2}, {1, 2}), tensor({1, 2}, {3, 5})}),
            (std::vector<double>{4, 7}));
}

TEST(MemoryReference, VarianceInputsArePositive) {
  const auto bn = memory_problem(MemoryOp::batch_norm, {2, 64, 3, 3}, Pass::fwd);
  const auto inputs = make_inputs(bn, 1);
  for (float v : inputs[2].data) {
    EXPECT_GT(v, 1);
    EXPECT_LT(v, 3);
  }
  bool negative_mean = false;
  for (float v : inputs[1].data) negative_mean |= v < 0;
  EXPECT_TRUE(negative_mean);  // the other inputs keep (-1, 1)
}

}  // namespace
}  // namespace lb
