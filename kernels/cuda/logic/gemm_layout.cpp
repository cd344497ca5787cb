#include "kernels/cuda/logic/gemm_layout.hpp"

namespace lb::cuda::logic {

LtGemm to_column_major(const GemmShape& s) {
  LtGemm g;
  g.m = s.n, g.n = s.m, g.k = s.k, g.batch = s.batch;
  // cuBLASLt's A must be op(B)^T (N x K). B stored [K][N] reads column-major as N x K already;
  // B stored [N][K] reads as K x N and needs the transpose.
  g.trans_a = s.trans_b ? Transpose::t : Transpose::n;
  g.a = s.trans_b ? LtMatrix{s.k, s.n, s.k, 0} : LtMatrix{s.n, s.k, s.n, 0};
  // cuBLASLt's B must be op(A)^T (K x M). A stored [M][K] reads as K x M; [K][M] reads as M x K.
  g.trans_b = s.trans_a ? Transpose::t : Transpose::n;
  g.b = s.trans_a ? LtMatrix{s.m, s.k, s.m, 0} : LtMatrix{s.k, s.m, s.k, 0};
  g.c = LtMatrix{s.n, s.m, s.n, 0};
  g.a.batch_stride = s.n * s.k;
  g.b.batch_stride = s.m * s.k;
  g.c.batch_stride = s.m * s.n;
  return g;
}

TnPlan tn_plan(const GemmShape& shape) {
  TnPlan plan;
  plan.transpose_a = shape.trans_a;
  plan.transpose_b = !shape.trans_b;
  plan.executed = shape;
  plan.executed.trans_a = false;
  plan.executed.trans_b = true;
  return plan;
}

std::optional<std::string> fp8_alignment_problem(const GemmShape& s) {
  // In the TN form the leading dimensions are K (both inputs) and N (the output); the batch
  // strides are M*K, N*K and M*N elements, multiples of 16 whenever K and N are.
  std::string bad;
  if (s.k % 16 != 0) bad += "K = " + std::to_string(s.k);
  if (s.n % 16 != 0) bad += (bad.empty() ? "" : ", ") + std::string("N = ") + std::to_string(s.n);
  if (bad.empty()) return std::nullopt;
  return "cuBLASLt FP8 needs 16-byte aligned matrices (K and N multiples of 16); this GEMM has " +
         bad;
}

void transpose_batched(const float* in, float* out, std::int64_t batch, std::int64_t rows,
                       std::int64_t cols) {
  for (std::int64_t b = 0; b < batch; ++b) {
    const float* src = in + b * rows * cols;
    float* dst = out + b * rows * cols;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

}  // namespace lb::cuda::logic
