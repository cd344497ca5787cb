// The double-precision reference on hand-computed cases for every pass, and the adjoint
// identities that tie the three convolution passes (and the GEMM passes) together.
#include "harness/check/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/measure/inputs.hpp"

namespace lb {
namespace {

Problem conv_problem(const ConvShape& s, Pass pass) {
  Problem p;
  p.op = ConvProblem{s, pass};
  return p;
}

Problem gemm_problem(const GemmShape& g) {
  Problem p;
  p.op = GemmProblem{g};
  return p;
}

HostTensor tensor(std::vector<std::int64_t> dims, std::vector<float> data) {
  return HostTensor{std::move(dims), std::move(data)};
}

// 1x1x3x3 input, one 2x2 filter, stride 2, padding 1, so P = Q = floor((3+2-1-1)/2)+1 = 2.
//   x = 1 2 3      w = 1 2     y[p][q] = sum_rs x[2p-1+r][2q-1+s] w[r][s]
//       4 5 6          3 4
//       7 8 9
ConvShape hand_shape() {
  ConvShape s;
  s.n = 1, s.c = 1, s.h = 3, s.w = 3, s.k = 1, s.r = 2, s.s = 2;
  s.stride_h = s.stride_w = 2, s.pad_h = s.pad_w = 1;
  return s;
}
const std::vector<float> hand_x{1, 2, 3, 4, 5, 6, 7, 8, 9};
const std::vector<float> hand_w{1, 2, 3, 4};
const std::vector<float> hand_dy{1, 2, 3, 4};

TEST(Reference, ConvForwardByHand) {
  // y00 = x00*w11 = 4;            y01 = x01*w10 + x02*w11 = 6 + 12 = 18
  // y10 = x10*w01 + x20*w11 = 8 + 28 = 36;  y11 = 5*1 + 6*2 + 8*3 + 9*4 = 77
  const auto p = conv_problem(hand_shape(), Pass::fwd);
  const auto y = reference_all(p, {tensor({1, 1, 3, 3}, hand_x), tensor({1, 1, 2, 2}, hand_w)});
  EXPECT_EQ(y, (std::vector<double>{4, 18, 36, 77}));
}

TEST(Reference, ConvBackwardDataByHand) {
  // Row h of x is read by (p, r) with h = 2p-1+r: h0 <- (0,1), h1 <- (1,0), h2 <- (1,1); the same
  // for columns. dx[h][w] = dy[p][q] w[r][s] for that single (p,q,r,s):
  //   dx = 1*4  2*3  2*4     =  4  6  8
  //        3*2  4*1  4*2         6  4  8
  //        3*4  4*3  4*4        12 12 16
  const auto p = conv_problem(hand_shape(), Pass::bwd_data);
  const auto dx = reference_all(p, {tensor({1, 1, 2, 2}, hand_dy), tensor({1, 1, 2, 2}, hand_w)});
  EXPECT_EQ(dx, (std::vector<double>{4, 6, 8, 6, 4, 8, 12, 12, 16}));
}

TEST(Reference, ConvBackwardWeightsByHand) {
  // dw[r][s] = sum_pq x[2p-1+r][2q-1+s] dy[p][q]:
  //   dw00 = x11*dy11 = 20            dw01 = x10*dy10 + x12*dy11 = 12 + 24 = 36
  //   dw10 = x01*dy01 + x21*dy11 = 4 + 32 = 36
  //   dw11 = x00*dy00 + x02*dy01 + x20*dy10 + x22*dy11 = 1 + 6 + 21 + 36 = 64
  const auto p = conv_problem(hand_shape(), Pass::bwd_weights);
  const auto dw = reference_all(p, {tensor({1, 1, 3, 3}, hand_x), tensor({1, 1, 2, 2}, hand_dy)});
  EXPECT_EQ(dw, (std::vector<double>{20, 36, 36, 64}));
}

TEST(Reference, DilatedGroupedConvForwardByHand) {
  // Two groups of one channel each, 1x2 filters dilated by 2 along w, no padding, stride 1:
  //   x channel 0 = 1 2 3 4, channel 1 = 5 6 7 8 (1 row); w filter 0 = (1, 10), filter 1 = (2, 20)
  //   y[k][q] = x[k][q]*w[k][0] + x[k][q+2]*w[k][1]
  //   y0 = 1+30, 2+40 = 31, 42     y1 = 10+140, 12+160 = 150, 172
  ConvShape s;
  s.n = 1, s.c = 2, s.h = 1, s.w = 4, s.k = 2, s.r = 1, s.s = 2, s.dil_w = 2, s.groups = 2;
  const auto y = reference_all(
      conv_problem(s, Pass::fwd),
      {tensor({1, 2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), tensor({2, 1, 1, 2}, {1, 10, 2, 20})});
  EXPECT_EQ(y, (std::vector<double>{31, 42, 150, 172}));
}

TEST(Reference, GemmByHandAllTransposes) {
  // op(A) = 1 2   op(B) = 5 6   C = 1*5+2*7  1*6+2*8  = 19 22
  //         3 4           7 8       3*5+4*7  3*6+4*8    43 50
  const std::vector<float> a{1, 2, 3, 4}, at{1, 3, 2, 4}, b{5, 6, 7, 8}, bt{5, 7, 6, 8};
  const std::vector<double> c{19, 22, 43, 50};
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      GemmShape g;
      g.m = g.n = g.k = 2, g.trans_a = ta, g.trans_b = tb;
      EXPECT_EQ(reference_all(gemm_problem(g),
                              {tensor({1, 2, 2}, ta ? at : a), tensor({1, 2, 2}, tb ? bt : b)}),
                c)
          << "trans_a " << ta << " trans_b " << tb;
    }
}

TEST(Reference, BatchedGemmUsesEachBatchsOperands) {
  // Batch 0: [1 2] . [3 4]^T... as 1x2 . 2x1: 1*3 + 2*4 = 11; batch 1: 5*7 + 6*8 = 83.
  GemmShape g;
  g.batch = 2, g.m = 1, g.n = 1, g.k = 2;
  EXPECT_EQ(reference_all(gemm_problem(g),
                          {tensor({2, 1, 2}, {1, 2, 5, 6}), tensor({2, 2, 1}, {3, 4, 7, 8})}),
            (std::vector<double>{11, 83}));
}

double dot(const std::vector<double>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// <conv(x,w), dy> = <x, bwd_data(dy,w)> = <w, bwd_weights(x,dy)>, on random data, for shapes
// with stride, padding, dilation and groups: the passes must be each other's adjoints.
TEST(Reference, ConvPassesAreAdjoint) {
  std::vector<ConvShape> shapes;
  ConvShape a;
  a.n = 2, a.c = 4, a.h = 7, a.w = 6, a.k = 6, a.r = 3, a.s = 2;
  a.stride_h = 2, a.stride_w = 1, a.pad_h = 1, a.pad_w = 2, a.dil_h = 1, a.dil_w = 2, a.groups = 2;
  shapes.push_back(a);
  ConvShape b;
  b.n = 1, b.c = 3, b.h = 9, b.w = 9, b.k = 5, b.r = 3, b.s = 3;
  b.stride_h = b.stride_w = 3, b.pad_h = b.pad_w = 1, b.dil_h = 2;
  shapes.push_back(b);
  for (const auto& s : shapes) {
    const auto fwd = conv_problem(s, Pass::fwd);
    const auto xw = make_inputs(fwd, 1);                                 // x, w
    const auto dy = make_inputs(conv_problem(s, Pass::bwd_data), 2)[0];  // dy
    const auto y = reference_all(fwd, xw);
    const auto dx = reference_all(conv_problem(s, Pass::bwd_data), {dy, xw[1]});
    const auto dw = reference_all(conv_problem(s, Pass::bwd_weights), {xw[0], dy});
    const double lhs = dot(y, dy.data);
    EXPECT_NEAR(dot(dx, xw[0].data), lhs, 1e-9 * std::fabs(lhs) + 1e-9) << describe(fwd);
    EXPECT_NEAR(dot(dw, xw[1].data), lhs, 1e-9 * std::fabs(lhs) + 1e-9) << describe(fwd);
  }
}

// The same identity for the GEMM passes of gemm_for_pass: <A.op(B), dC> = <A, dA> = <B, dB>.
TEST(Reference, GemmPassesAreAdjoint) {
  for (bool tb : {false, true}) {
    GemmShape f;
    f.batch = 2, f.m = 5, f.n = 3, f.k = 4, f.trans_b = tb;
    const auto ab = make_inputs(gemm_problem(f), 3);
    // Random dC[2][5][3]: the A operand of a 2x(5x3).(3x1) product.
    const HostTensor dC = make_inputs(gemm_problem(GemmShape{2, 5, 1, 3}), 4)[0];
    const auto c = reference_all(gemm_problem(f), ab);
    const auto da = reference_all(gemm_problem(gemm_for_pass(f, Pass::bwd_data)), {dC, ab[1]});
    const auto db =
        reference_all(gemm_problem(gemm_for_pass(f, Pass::bwd_weights)),
                      tb ? std::vector<HostTensor>{dC, ab[0]} : std::vector<HostTensor>{ab[0], dC});
    const double lhs = dot(c, dC.data);
    EXPECT_NEAR(dot(da, ab[0].data), lhs, 1e-9 * std::fabs(lhs)) << "trans_b " << tb;
    EXPECT_NEAR(dot(db, ab[1].data), lhs, 1e-9 * std::fabs(lhs)) << "trans_b " << tb;
  }
}

TEST(Inputs, DeterministicPerSeedUniformNonZeroAndRounded) {
  Problem p = conv_problem(hand_shape(), Pass::fwd);
  EXPECT_EQ(make_inputs(p, 7)[0].data, make_inputs(p, 7)[0].data);
  EXPECT_NE(make_inputs(p, 7)[0].data, make_inputs(p, 8)[0].data);
  p.precision = Precision::bf16;
  for (const auto& t : make_inputs(p, 9))
    for (float v : t.data) {
      EXPECT_NE(v, 0.0f);
      EXPECT_LT(std::fabs(v), 1.0f + 1e-7f);
      EXPECT_EQ(v, round_to_storage(Precision::bf16, v));
    }
  EXPECT_EQ(uniform_from_bits(0), -1.0f + 1.0f / (1 << 24) * 1.0f);
  EXPECT_EQ(uniform_from_bits(~0ull), 1.0f - 1.0f / (1 << 24));
}

}  // namespace
}  // namespace lb
