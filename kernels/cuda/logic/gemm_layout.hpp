#pragma once
// How a row-major layerbench GEMM is expressed to cuBLASLt, which is column-major. Pure logic.
//
// A row-major matrix X (r x c, leading dimension c) is, byte for byte, the column-major matrix
// X^T (c x r, leading dimension c). So the row-major product C = op(A) . op(B) is computed as the
// column-major product C^T = op(B)^T . op(A)^T: cuBLASLt's "A" is our B, its "B" is our A, and its
// m and n are our N and M. Its output, column-major N x M with leading dimension N, is our C.
#include <cstdint>
#include <optional>
#include <string>

#include "harness/api/problem.hpp"

namespace lb::cuda::logic {

enum class Transpose { n, t };

// A matrix as cuBLASLt describes it: as stored, column-major, before any transpose.
struct LtMatrix {
  std::int64_t rows = 0, cols = 0, ld = 0;
  std::int64_t batch_stride = 0;  // elements between consecutive matrices of a batch
};

struct LtGemm {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  Transpose trans_a = Transpose::n, trans_b = Transpose::n;
  LtMatrix a, b, c;  // cuBLASLt's A (our B), B (our A), C/D (our C)
};

LtGemm to_column_major(const GemmShape& row_major);

// cuBLASLt runs FP8 only in the "TN" form, its A transposed and its B not (cuBLAS documentation,
// cublasLtMatmul(), FP8 requirements), which in our terms is trans_a = false and trans_b = true.
// Other layouts are made TN by transposing the offending operand's storage once, on the host
// before upload (never timed), the way FP8 training keeps a transposed copy of its tensors.
struct TnPlan {
  bool transpose_a = false;  // A stored [K][M]: store it as [M][K]
  bool transpose_b = false;  // B stored [K][N]: store it as [N][K]
  GemmShape executed;        // the shape cuBLASLt runs: trans_a = false, trans_b = true
};
TnPlan tn_plan(const GemmShape& shape);

// FP8 kernels need every matrix 16-byte aligned (the same FP8 requirements): K and N multiples
// of 16 (their leading dimensions in the TN form, 1-byte inputs, and N also for the 2-byte BF16
// output), and per-batch strides keeping that alignment. Returns why a shape cannot run, or
// nothing.
std::optional<std::string> fp8_alignment_problem(const GemmShape& shape);

// Transpose each matrix of a batch stored row-major [batch][rows][cols] to [batch][cols][rows].
void transpose_batched(const float* in, float* out, std::int64_t batch, std::int64_t rows,
                       std::int64_t cols);

}  // namespace lb::cuda::logic
