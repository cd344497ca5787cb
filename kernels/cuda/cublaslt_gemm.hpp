#pragma once
// GEMMs, batched or not, through cuBLASLt in every layerbench precision.
#include <memory>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda {

// Maps the row-major product to cuBLASLt's column-major one (kernels/cuda/logic/gemm_layout.hpp),
// asks the heuristic for up to 8 algorithms within the workspace limit, and takes the first
// (AlgoChoice::heuristic) or the fastest (autotune). FP8 runs in the TN form, transposing an
// operand on the host before upload where the layout needs it. Throws Unsupported when cuBLASLt
// has no algorithm. The caller has checked support and memory.
std::unique_ptr<Case> prepare_cublaslt_gemm(std::shared_ptr<DeviceContext> context,
                                            const Problem& problem,
                                            const std::vector<HostTensor>& inputs,
                                            const CudaCaseOptions& options);

}  // namespace lb::cuda
