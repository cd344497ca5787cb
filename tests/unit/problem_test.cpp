// Problem descriptors: convolution output sizes, the GEMMs of the training passes (checked
// numerically against gradients computed by hand), tensor dimensions, FLOPs and bytes.
#include "harness/api/problem.hpp"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace lb {
namespace {

ConvShape conv(std::int64_t h, std::int64_t r, std::int64_t stride, std::int64_t pad,
               std::int64_t dil = 1) {
  ConvShape s;
  s.c = 1, s.k = 1, s.h = h, s.w = h, s.r = r, s.s = r;
  s.stride_h = s.stride_w = stride;
  s.pad_h = s.pad_w = pad;
  s.dil_h = s.dil_w = dil;
  return s;
}

// ---- output size: floor((H + 2*pad - dil*(R-1) - 1) / stride) + 1 ----

TEST(ConvOutput, ResNetShapes) {
  EXPECT_EQ(conv(224, 7, 2, 3).p(), 112);   // stem: (224 + 6 - 6 - 1) / 2 + 1 = 112 (floor)
  EXPECT_EQ(conv(56, 3, 2, 1).p(), 28);     // strided 3x3: (56 + 2 - 2 - 1) / 2 + 1
  EXPECT_EQ(conv(56, 1, 2, 0).p(), 28);     // strided 1x1 downsample: 55 / 2 + 1
  EXPECT_EQ(conv(7, 3, 1, 1).p(), 7);       // same padding
  EXPECT_EQ(conv(224, 16, 16, 0).p(), 14);  // ViT patches
}

TEST(ConvOutput, Dilation) {
  EXPECT_EQ(conv(10, 3, 1, 0, 2).p(), 6);   // the window spans 5: 10 - 5 + 1
  EXPECT_EQ(conv(10, 3, 1, 2, 2).p(), 10);  // padding 2 keeps the size
  EXPECT_EQ(conv(10, 3, 3, 0, 4).p(), 1);   // spans 9: (10 - 8 - 1) / 3 + 1
}

TEST(ConvOutput, HeightAndWidthAreIndependent) {
  ConvShape s = conv(20, 3, 1, 0);
  s.w = 9, s.s = 5, s.stride_w = 2, s.pad_w = 1, s.dil_w = 1;
  EXPECT_EQ(s.p(), 18);
  EXPECT_EQ(s.q(), 4);  // (9 + 2 - 4 - 1) / 2 + 1
}

TEST(ConvOutput, WindowThatDoesNotFitGivesZero) {
  EXPECT_EQ(conv(6, 7, 1, 0).p(), 0);  // span -1
  // Truncating division would turn -1/2 into 0 and report an output of 1.
  EXPECT_EQ(conv(6, 7, 2, 0).p(), 0);
  EXPECT_EQ(conv(2, 7, 2, 0).p(), 0);  // span -5
  EXPECT_EQ(conv(6, 7, 2, 1).p(), 1);  // padding makes it fit once: span 1
  ConvShape zero_stride = conv(8, 3, 1, 0);
  zero_stride.stride_h = 0;
  EXPECT_EQ(zero_stride.p(), 0);
}

// ---- the GEMMs of the training passes ----

// C[b][i][j] = sum_l op(A)[b][i][l] . op(B)[b][l][j] with GemmShape's storage convention.
std::vector<double> run_gemm(const GemmShape& g, const std::vector<double>& a,
                             const std::vector<double>& b) {
  std::vector<double> c(static_cast<std::size_t>(g.batch * g.m * g.n), 0.0);
  for (std::int64_t t = 0; t < g.batch; ++t)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j)
        for (std::int64_t l = 0; l < g.k; ++l) {
          const double av = g.trans_a ? a[(t * g.k + l) * g.m + i] : a[(t * g.m + i) * g.k + l];
          const double bv = g.trans_b ? b[(t * g.n + j) * g.k + l] : b[(t * g.k + l) * g.n + j];
          c[(t * g.m + i) * g.n + j] += av * bv;
        }
  return c;
}

std::vector<double> sequence(std::size_t n, int seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7 + seed * 3) % 11) - 5;
  return v;
}

class GemmPasses : public ::testing::TestWithParam<bool> {};

// Gradients of L = sum(C . dC) for C = A . op(B), written out element by element, equal the
// products gemm_for_pass describes, fed with the stored arrays (dC, A, B) as documented.
TEST_P(GemmPasses, ComputeTheGradients) {
  const bool trans_b = GetParam();
  const GemmShape f{2, 3, 4, 5, false, trans_b};
  const auto a = sequence(2 * 3 * 5, 1), b = sequence(2 * 5 * 4, 2), dc = sequence(2 * 3 * 4, 3);
  const auto b_at = [&](std::int64_t t, std::int64_t l, std::int64_t j) {  // op(B)[t][l][j]
    return trans_b ? b[(t * f.n + j) * f.k + l] : b[(t * f.k + l) * f.n + j];
  };

  std::vector<double> da(a.size(), 0.0), db(b.size(), 0.0);
  for (std::int64_t t = 0; t < f.batch; ++t)
    for (std::int64_t i = 0; i < f.m; ++i)
      for (std::int64_t j = 0; j < f.n; ++j)
        for (std::int64_t l = 0; l < f.k; ++l) {
          const double g = dc[(t * f.m + i) * f.n + j];
          da[(t * f.m + i) * f.k + l] += g * b_at(t, l, j);
          const auto b_index = trans_b ? (t * f.n + j) * f.k + l : (t * f.k + l) * f.n + j;
          db[b_index] += g * a[(t * f.m + i) * f.k + l];
        }

  const auto data = gemm_for_pass(f, Pass::bwd_data);
  EXPECT_EQ(data, (GemmShape{2, 3, 5, 4, false, !trans_b}));
  EXPECT_EQ(run_gemm(data, dc, b), da);

  const auto weights = gemm_for_pass(f, Pass::bwd_weights);
  EXPECT_EQ(weights,
            trans_b ? (GemmShape{2, 4, 5, 3, true, false}) : (GemmShape{2, 5, 4, 3, true, false}));
  // B stored [N][K]: dB = dC^T . A; B stored [K][N]: dB = A^T . dC.
  EXPECT_EQ(trans_b ? run_gemm(weights, dc, a) : run_gemm(weights, a, dc), db);

  EXPECT_EQ(gemm_for_pass(f, Pass::fwd), f);
}

INSTANTIATE_TEST_SUITE_P(TransB, GemmPasses, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "B_NxK" : "B_KxN"; });

TEST(GemmPasses, EveryPassCostsTheForwardFlops) {
  const GemmShape f{12, 197, 197, 64, false, true};
  for (Pass pass : layer_passes) {
    const Problem p{GemmProblem{gemm_for_pass(f, pass)}, Precision::fp32};
    EXPECT_DOUBLE_EQ(flop_count(p), 2.0 * 12 * 197 * 197 * 64) << name(pass);
  }
}

TEST(GemmPasses, TransposedAIsRefusedForTraining) {
  const GemmShape f{1, 4, 4, 4, true, false};
  EXPECT_EQ(gemm_for_pass(f, Pass::fwd), f);
  EXPECT_THROW(gemm_for_pass(f, Pass::bwd_data), std::invalid_argument);
  EXPECT_THROW(gemm_for_pass(f, Pass::bwd_weights), std::invalid_argument);
}

// ---- tensors, FLOPs, bytes ----

Problem conv_problem(Pass pass, Precision precision = Precision::fp32) {
  ConvShape s;
  s.n = 2, s.c = 8, s.h = 10, s.w = 12, s.k = 6, s.r = 3, s.s = 3;
  s.stride_h = 2, s.stride_w = 1, s.pad_h = 1, s.pad_w = 0, s.groups = 2;
  return Problem{ConvProblem{s, pass}, precision};  // p = 5, q = 10
}

TEST(TensorDims, ConvolutionPasses) {
  using Dims = std::vector<std::int64_t>;
  const Dims x{2, 8, 10, 12}, w{6, 4, 3, 3}, y{2, 6, 5, 10};
  auto d = tensor_dims(conv_problem(Pass::fwd));
  EXPECT_EQ(d.inputs, (std::vector<Dims>{x, w}));
  EXPECT_EQ(d.output, y);
  d = tensor_dims(conv_problem(Pass::bwd_data));
  EXPECT_EQ(d.inputs, (std::vector<Dims>{y, w}));
  EXPECT_EQ(d.output, x);
  d = tensor_dims(conv_problem(Pass::bwd_weights));
  EXPECT_EQ(d.inputs, (std::vector<Dims>{x, y}));
  EXPECT_EQ(d.output, w);
}

TEST(TensorDims, BatchNormPassesAndConvolutionsRefuseTheTrainingForward) {
  using Dims = std::vector<std::int64_t>;
  const Dims x{2, 8, 5, 6}, channel{8};
  auto bn = [&](Pass pass) {
    return tensor_dims(Problem{MemoryProblem{{MemoryOp::batch_norm, x}, pass}, Precision::fp32});
  };
  EXPECT_EQ(bn(Pass::fwd).inputs, (std::vector<Dims>{x, channel, channel, channel, channel}));
  EXPECT_EQ(bn(Pass::fwd).positive_input, 2);
  // Training forward: the statistics come from x, so only gamma and beta go with it.
  EXPECT_EQ(bn(Pass::fwd_training).inputs, (std::vector<Dims>{x, channel, channel}));
  EXPECT_EQ(bn(Pass::fwd_training).output, x);
  EXPECT_EQ(bn(Pass::fwd_training).positive_input, -1);
  EXPECT_EQ(bn(Pass::bwd_data).inputs, (std::vector<Dims>{x, x, channel}));
  EXPECT_THROW(tensor_dims(conv_problem(Pass::fwd_training)), std::invalid_argument);
  for (MemoryOp other : {MemoryOp::layer_norm, MemoryOp::relu, MemoryOp::add})
    EXPECT_THROW(
        tensor_dims(Problem{MemoryProblem{{other, x}, Pass::fwd_training}, Precision::fp32}),
        std::invalid_argument)
        << name(other);
  EXPECT_THROW(gemm_for_pass({1, 4, 5, 6, false, false}, Pass::fwd_training),
               std::invalid_argument);
}

TEST(TensorDims, GemmStorageFollowsTheTransposes) {
  using Dims = std::vector<std::int64_t>;
  auto d = tensor_dims(Problem{GemmProblem{{3, 4, 5, 6, true, true}}, Precision::fp32});
  EXPECT_EQ(d.inputs, (std::vector<Dims>{{3, 6, 4}, {3, 5, 6}}));
  EXPECT_EQ(d.output, (Dims{3, 4, 5}));
  d = tensor_dims(Problem{GemmProblem{{1, 4, 5, 6, false, false}}, Precision::fp32});
  EXPECT_EQ(d.inputs, (std::vector<Dims>{{1, 4, 6}, {1, 6, 5}}));
  EXPECT_EQ(element_count(d.output), 20);
}

TEST(TensorDims, ElementCountRefusesToWrap) {
  const std::int64_t two31 = std::int64_t{1} << 31;
  // 2^62 fits; 2^93 would wrap to 0 in 64-bit arithmetic.
  EXPECT_EQ(element_count({two31, two31}), std::int64_t{1} << 62);
  EXPECT_THROW(element_count({two31, two31, two31}), std::overflow_error);
  EXPECT_EQ(element_count({two31, two31, 0}), 0);
  EXPECT_THROW(element_count({2, -3}), std::invalid_argument);
}

TEST(Flops, ConvolutionCountsGroupedMultiplyAddsTwice) {
  // N K P Q (C/groups) R S = 2 * 6 * 5 * 10 * 4 * 3 * 3
  for (Pass pass : layer_passes) EXPECT_DOUBLE_EQ(flop_count(conv_problem(pass)), 2.0 * 21600);
}

TEST(Flops, WindowThatDoesNotFitDoesNoWork) {
  ConvShape s = conv(6, 7, 2, 0);
  EXPECT_DOUBLE_EQ(flop_count(Problem{ConvProblem{s, Pass::fwd}, Precision::fp32}), 0.0);
}

TEST(MinBytes, EachTensorOnceAtStorageSize) {
  // x 2*8*10*12 = 1920, w 6*4*3*3 = 216, y 2*6*5*10 = 600
  EXPECT_DOUBLE_EQ(min_bytes(conv_problem(Pass::fwd, Precision::fp32)), (1920 + 216 + 600) * 4.0);
  EXPECT_DOUBLE_EQ(min_bytes(conv_problem(Pass::fwd, Precision::tf32)), (1920 + 216 + 600) * 4.0);
  EXPECT_DOUBLE_EQ(min_bytes(conv_problem(Pass::fwd, Precision::bf16)), (1920 + 216 + 600) * 2.0);
  // FP8: 1-byte inputs, BF16 output; backward-data writes dx.
  EXPECT_DOUBLE_EQ(min_bytes(conv_problem(Pass::fwd, Precision::fp8)), 1920 + 216 + 600 * 2.0);
  EXPECT_DOUBLE_EQ(min_bytes(conv_problem(Pass::bwd_data, Precision::fp8)), 600 + 216 + 1920 * 2.0);
  EXPECT_DOUBLE_EQ(min_bytes(Problem{GemmProblem{{2, 3, 4, 5, false, true}}, Precision::fp16}),
                   (30 + 40 + 24) * 2.0);
}

TEST(MinBytes, BatchNormTrainingForwardReadsXAndTheAffineVectorsAndWritesY) {
  // x and y 2*8*5*6 = 480 elements each, gamma and beta 8 each.
  const MemoryShape x{MemoryOp::batch_norm, {2, 8, 5, 6}};
  EXPECT_DOUBLE_EQ(min_bytes(Problem{MemoryProblem{x, Pass::fwd_training}, Precision::fp32}),
                   (480 + 2 * 8 + 480) * 4.0);
  EXPECT_DOUBLE_EQ(min_bytes(Problem{MemoryProblem{x, Pass::fwd_training}, Precision::bf16}),
                   (480 + 2 * 8 + 480) * 2.0);
}

TEST(Describe, NamesTheShape) {
  EXPECT_EQ(describe(conv_problem(Pass::fwd)),
            "N2 C8 H10 W12 K6 R3 S3 stride 2x1 pad 1x0 groups 2");
  EXPECT_EQ(describe(Problem{GemmProblem{{12, 197, 197, 64, false, true}}, Precision::fp32}),
            "12x[197x64].[64x197]^T");
}

}  // namespace
}  // namespace lb
