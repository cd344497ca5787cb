#pragma once
// A problem descriptor: one convolution, GEMM or memory-bound operation (normalisation,
// elementwise, binary, pooling, softmax) at a concrete batch, pass and precision.
// Plain data (as in oneDNN's benchdnn): backends receive it, the reference computes it,
// the accounting counts it. Tensors have one canonical layout here; backends convert.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/api/precision.hpp"

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

// Memory-bound operations: they move bytes rather than multiply-add, so their roofline is
// the memory bandwidth. Shapes are torchvision's: see bench/models/SCHEMA.md.
enum class MemoryOp { batch_norm, layer_norm, relu, gelu_erf, add, max_pool, avg_pool, softmax };
std::string_view name(MemoryOp op);

// The epsilons of the models' normalisations: nn.BatchNorm2d's default, and the
// LayerNorm(eps=1e-6) of torchvision's VisionTransformer.
inline constexpr double batch_norm_epsilon = 1e-5;
inline constexpr double layer_norm_epsilon = 1e-6;

// `dims` is the tensor x, batch first, row-major:
//   batch_norm: N C H W, normalised per channel over N, H and W (affine, as nn.BatchNorm2d)
//   layer_norm, softmax: over the last dimension; every other index is a row
//   relu, gelu_erf, add: any shape; add's second operand has a batch of 1 when broadcast
//   max_pool, avg_pool: N C H W, a square window; avg excludes padding from its divisor
struct MemoryShape {
  MemoryOp op = MemoryOp::relu;
  std::vector<std::int64_t> dims;
  bool broadcast = false;                        // add: one second operand for the whole batch
  std::int64_t window = 1, stride = 1, pad = 0;  // pooling
  // relu, add: the forward writes its output over its (first) input, as a model that runs it
  // in place does (torchvision's ResNet: `out += identity`, nn.ReLU(inplace=True)).
  bool in_place = false;
  // Pooling output size: floor((in + 2*pad - window) / stride) + 1, 0 when it does not fit.
  std::int64_t pooled(std::int64_t in) const;
  bool operator==(const MemoryShape&) const = default;
};

// pass is fwd or bwd_data (the gradient of x; for add, the accumulation of the two gradients
// where the residual forked: an add of the same shape), and for batch norm also fwd_training.
// Batch norm's fwd is inference (running statistics); its fwd_training normalises with the
// batch's statistics, which it computes from x, and its bwd_data is training's, with them.
struct MemoryProblem {
  MemoryShape shape;
  Pass pass = Pass::fwd;
  bool operator==(const MemoryProblem&) const = default;
};

// Whether the problem's output overwrites its first input: an in-place op's forward. Its
// backward is a framework's own (autograd writes a new gradient), not in place.
bool runs_in_place(const MemoryProblem& problem);

struct Problem {
  std::variant<ConvProblem, GemmProblem, MemoryProblem> op;
  Precision precision = Precision::fp32;

  bool is_conv() const { return std::holds_alternative<ConvProblem>(op); }
  bool is_gemm() const { return std::holds_alternative<GemmProblem>(op); }
  bool is_memory() const { return std::holds_alternative<MemoryProblem>(op); }
  const ConvProblem& conv() const { return std::get<ConvProblem>(op); }
  const GemmProblem& gemm() const { return std::get<GemmProblem>(op); }
  const MemoryProblem& memory() const { return std::get<MemoryProblem>(op); }
  bool operator==(const Problem&) const = default;
};

// The GEMM that computes a pass of the forward product C = op(A) . op(B):
//   bwd_data    dA = dC . op(B)^T     bwd_weights  dB = op(A)^T . dC
// Forward products with trans_a are not supported for training (none is in the catalogue).
GemmShape gemm_for_pass(const GemmShape& forward, Pass pass);

// Dimensions of the tensors a problem reads (in order) and writes, in canonical layout:
//   conv fwd {x, w} -> y;  bwd_data {dy, w} -> dx;  bwd_weights {x, dy} -> dw
//   gemm {A, B} -> C (with the batch as leading dimension)
//   memory fwd:  batch_norm {x, mean, variance, gamma, beta} -> y (per-channel vectors)
//                layer_norm {x, gamma, beta} -> y;  add {a, b} -> c;  others {x} -> y
//   memory fwd_training: batch_norm {x, gamma, beta} -> y (the batch's mean and variance,
//                C values each, are written too: not a tensor here, see min_bytes)
//   memory bwd_data: batch_norm, layer_norm {x, dy, gamma} -> dx;  add {a, b} -> c;
//                avg_pool {dy} -> dx;  relu, gelu_erf, max_pool, softmax {x, dy} -> dx
// Statistics a backward pass needs (a normalisation's mean and variance, softmax's output, max
// pooling's argmax) are the forward's: backends compute them while preparing, not timed.
struct TensorDims {
  std::vector<std::vector<std::int64_t>> inputs;
  std::vector<std::int64_t> output;
  // An input that must be positive (batch norm's variance); -1 when none. make_inputs draws
  // it in (1, 3).
  int positive_input = -1;
};
TensorDims tensor_dims(const Problem& problem);
// The product of the dimensions; throws std::overflow_error beyond INT64_MAX (never wraps)
// and std::invalid_argument for a negative dimension.
std::int64_t element_count(const std::vector<std::int64_t>& dims);

// 2 x multiply-adds. Memory-bound problems count 0: not defined (their roofline is bytes), and
// models' published GFLOP counts convolutions and GEMMs only.
double flop_count(const Problem& problem);
// Each input read once and the output written once, at the precision's storage sizes. For
// backward memory-bound problems this leaves out what backends derive while preparing (the
// statistics, softmax's output or max pooling's argmax, read instead of x where so implemented)
// and the normalisations' scale and shift gradients: vectors of C or hidden elements. Batch
// norm's fwd_training counts N*C*H*W * (input_bytes + output_bytes) for x and y plus
// 2*C * input_bytes for gamma and beta, and leaves out the 2*C statistics it writes, likewise.
double min_bytes(const Problem& problem);

// Short human-readable shape, e.g. "N8 C64 H56 W56 K64 R3 S3 /1 p1" or "64x197x197x64 NT".
std::string describe(const Problem& problem);

}  // namespace lb
