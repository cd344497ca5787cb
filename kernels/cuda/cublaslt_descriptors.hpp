#pragma once
// cuBLASLt's description of one GEMM: the matmul descriptor and the three matrix layouts. They are
// host objects, created and set without a GPU (only cublasLtCreate, the heuristic and the matmul
// need one), which lets tests/unit/cuda_descriptors_test.cpp read back every shipped GEMM's.
#include <cublasLt.h>

#include <optional>
#include <utility>

#include "harness/api/precision.hpp"
#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/logic/gemm_layout.hpp"

namespace lb::cuda {

// An owned cuBLASLt object, destroyed with its library function.
template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
class LtObject {
 public:
  LtObject() = default;
  ~LtObject() {
    if (handle_) Destroy(handle_);
  }
  LtObject(LtObject&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
  LtObject& operator=(LtObject&& o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  LtObject(const LtObject&) = delete;
  LtObject& operator=(const LtObject&) = delete;
  Handle get() const { return handle_; }
  // For creation: the object is emptied first, so it can be created again.
  Handle* out() {
    if (handle_) Destroy(handle_);
    handle_ = nullptr;
    return &handle_;
  }

 private:
  Handle handle_ = nullptr;
};
using MatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;

cudaDataType_t cuda_data_type(logic::ElementType type);

// fp32: plain COMPUTE_32F, as PyTorch's CUDABlas.cpp asks when TF32 is off (FP32 math: cuBLASLt
// uses TF32 only under FAST_TF32, and BF16x9 emulation only when an emulation strategy is chosen,
// which the GEMM case refuses to inherit from the environment); PEDANTIC would also forbid the
// split-K and reduction schemes PyTorch's choice may take. tf32: FAST_TF32; 16-bit and FP8
// inputs: FP32 accumulation.
cublasComputeType_t preferred_compute_type(Precision precision);
const char* compute_type_name(cublasComputeType_t type);

// Whether a status means "cuBLASLt does not offer this compute type" rather than an error.
bool compute_not_offered(cublasStatus_t status);

// cuBLASLt's A (our B), B (our A) and C, which is also D: the GEMM is computed in place. Inputs
// have the precision's input type, C/D its output type (fp8: E4M3 in, BF16 out); a batch sets
// the batch count and strided-batch offset.
struct LtLayouts {
  MatrixLayout a, b, c;
};
LtLayouts matrix_layouts(const logic::LtGemm& gemm, Precision precision);

// The FP8 per-tensor scale factors: device pointers to one float each (the compute type's
// scalar type). Setting them stores the pointers only; cublasLtMatmul reads them.
struct Fp8Scales {
  const float* a = nullptr;
  const float* b = nullptr;
};

// The matmul descriptor: `compute`, FP32 alpha/beta (CUBLASLT_MATMUL_DESC_SCALE_TYPE), the
// transposes of `gemm` and, when `fp8_scales` is given, the A and B scale pointers. Empty when
// cuBLASLt does not offer `compute` (compute_not_offered); throws LibraryError on other failures.
std::optional<MatmulDesc> matmul_desc(const logic::LtGemm& gemm, cublasComputeType_t compute,
                                      const Fp8Scales* fp8_scales);

}  // namespace lb::cuda
