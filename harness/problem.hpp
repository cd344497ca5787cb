#pragma once
// A problem descriptor: one convolution or GEMM at a concrete batch, pass and precision.
// Plain data (as in oneDNN's benchdnn): backends receive it, the reference computes it,
// the accounting counts it. Tensors have one canonical layout here; backends convert.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "harness/precision.hpp"

namespace lb {

// Convolution, cross-correlation as in every DL framework.
// Canonical layouts: x NCHW, w K x (C/groups) x R x S, y NKPQ.
struct ConvShape {
  std::int64_t n = 1, c = 0, h = 0, w = 0;  // input
  std::int64_t k = 0, r = 0, s = 0;         // filters: count and window
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
  std::int64_t groups = 1;
  // Output size: floor((H + 2*pad - dil*(R-1) - 1) / stride) + 1; may be <= 0 for bad shapes.
  std::int64_t p() const;
  std::int64_t q() const;
  bool operator==(const ConvShape&) const = default;
};

// C[batch][M][N] = op(A) . op(B), all row-major.
// A is stored [M][K], or [K][M] when trans_a; B is stored [K][N], or [N][K] when trans_b.
// A PyTorch linear y = x . W^T is M = tokens*batch, N = out, K = in, trans_b = true.
struct GemmShape {
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  bool operator==(const GemmShape&) const = default;
};

struct ConvProblem {
  ConvShape shape;
  Pass pass = Pass::fwd;
  bool operator==(const ConvProblem&) const = default;
};

// GEMM training passes are themselves GEMMs (see gemm_for_pass); a GemmProblem is always
// the product actually executed.
struct GemmProblem {
  GemmShape shape;
  bool operator==(const GemmProblem&) const = default;
};

struct Problem {
  std::variant<ConvProblem, GemmProblem> op;
  Precision precision = Precision::fp32;

  bool is_conv() const { return std::holds_alternative<ConvProblem>(op); }
  const ConvProblem& conv() const { return std::get<ConvProblem>(op); }
  const GemmProblem& gemm() const { return std::get<GemmProblem>(op); }
  bool operator==(const Problem&) const = default;
};

// The GEMM that computes a pass of the forward product C = op(A) . op(B):
//   bwd_data    dA = dC . op(B)^T     bwd_weights  dB = op(A)^T . dC
// Forward products with trans_a are not supported for training (none is in the catalogue).
GemmShape gemm_for_pass(const GemmShape& forward, Pass pass);

// Dimensions of the tensors a problem reads (in order) and writes, in canonical layout:
//   conv fwd {x, w} -> y;  bwd_data {dy, w} -> dx;  bwd_weights {x, dy} -> dw
//   gemm {A, B} -> C (with the batch as leading dimension)
struct TensorDims {
  std::vector<std::vector<std::int64_t>> inputs;
  std::vector<std::int64_t> output;
};
TensorDims tensor_dims(const Problem& problem);
// The product of the dimensions; throws std::overflow_error beyond INT64_MAX (never wraps)
// and std::invalid_argument for a negative dimension.
std::int64_t element_count(const std::vector<std::int64_t>& dims);

// 2 x multiply-adds.
double flop_count(const Problem& problem);
// Each input read once and the output written once, at the precision's storage sizes.
double min_bytes(const Problem& problem);

// Short human-readable shape, e.g. "N8 C64 H56 W56 K64 R3 S3 /1 p1" or "64x197x197x64 NT".
std::string describe(const Problem& problem);

}  // namespace lb
