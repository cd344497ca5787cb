#include "kernels/cuda/cublaslt_descriptors.hpp"

#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {

cudaDataType_t cuda_data_type(logic::ElementType t) {
  switch (t) {
    case logic::ElementType::f32:
      return CUDA_R_32F;
    case logic::ElementType::f16:
      return CUDA_R_16F;
    case logic::ElementType::bf16:
      return CUDA_R_16BF;
    case logic::ElementType::e4m3:
      return CUDA_R_8F_E4M3;
  }
  throw std::invalid_argument("unknown element type");
}

cublasComputeType_t preferred_compute_type(Precision p) {
  switch (p) {
    case Precision::tf32:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    default:
      return CUBLAS_COMPUTE_32F;
  }
}

const char* compute_type_name(cublasComputeType_t t) {
  switch (t) {
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_32F:
      return "CUBLAS_COMPUTE_32F";
    default:
      return "other";
  }
}

bool compute_not_offered(cublasStatus_t status) { return status == CUBLAS_STATUS_NOT_SUPPORTED; }

namespace {

MatrixLayout matrix_layout(logic::ElementType type, const logic::LtMatrix& m, std::int64_t batch) {
  MatrixLayout layout;
  LB_CUBLAS(cublasLtMatrixLayoutCreate(layout.out(), cuda_data_type(type),
                                       static_cast<std::uint64_t>(m.rows),
                                       static_cast<std::uint64_t>(m.cols), m.ld));
  if (batch > 1) {
    // The attribute types cuBLASLt documents: int32_t count, int64_t stride in elements.
    const auto count = static_cast<std::int32_t>(batch);
    const std::int64_t stride = m.batch_stride;
    LB_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout.get(), CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                               &count, sizeof count));
    LB_CUBLAS(cublasLtMatrixLayoutSetAttribute(
        layout.get(), CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return layout;
}

}  // namespace

LtLayouts matrix_layouts(const logic::LtGemm& g, Precision precision) {
  const logic::ElementType in = logic::input_type(precision), out = logic::output_type(precision);
  return LtLayouts{matrix_layout(in, g.a, g.batch), matrix_layout(in, g.b, g.batch),
                   matrix_layout(out, g.c, g.batch)};
}

std::optional<MatmulDesc> matmul_desc(const logic::LtGemm& g, cublasComputeType_t compute,
                                      const Fp8Scales* fp8_scales) {
  MatmulDesc desc;
  const cublasStatus_t created = cublasLtMatmulDescCreate(desc.out(), compute, CUDA_R_32F);
  if (compute_not_offered(created)) return std::nullopt;
  LB_CUBLAS(created);
  // cublasOperation_t is stored as the documented int32_t.
  const std::int32_t trans_a = g.trans_a == logic::Transpose::t ? CUBLAS_OP_T : CUBLAS_OP_N;
  const std::int32_t trans_b = g.trans_b == logic::Transpose::t ? CUBLAS_OP_T : CUBLAS_OP_N;
  LB_CUBLAS(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                           sizeof trans_a));
  LB_CUBLAS(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                           sizeof trans_b));
  if (fp8_scales) {
    // The attribute value is the pointer itself (const void*), so its address is passed.
    LB_CUBLAS(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                             &fp8_scales->a, sizeof fp8_scales->a));
    LB_CUBLAS(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                             &fp8_scales->b, sizeof fp8_scales->b));
  }
  return desc;
}

}  // namespace lb::cuda
