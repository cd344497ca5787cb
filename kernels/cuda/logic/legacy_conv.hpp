#pragma once
// The rules of the cuDNN legacy convolution path (`--cudnn-api legacy`: cudnnConvolutionForward,
// cudnnConvolutionBackwardData, cudnnConvolutionBackwardFilter), kept for comparison with older
// frameworks such as TensorFlow 2.10. Pure logic: no cuDNN header, so the enums below mirror
// cuDNN's values and kernels/cuda/cudnn_legacy_conv.cpp checks them at compile time.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/api/precision.hpp"

namespace lb::cuda::logic {

// cudnnMathType_t. cuDNN's meaning: default = no Tensor Cores before compute capability 8.0, TF32
// Tensor Cores permitted for FP32 data from 8.0; tensor_op = Tensor Cores permitted without
// converting the data type; tensor_op_allow_conversion = may also down-convert the data (FP32 to
// FP16) to use them; fma = only FMA kernels, no Tensor Cores.
enum class LegacyMathType {
  default_math = 0,
  tensor_op = 1,
  tensor_op_allow_conversion = 2,
  fma = 3
};

std::string_view name(LegacyMathType math);   // "CUDNN_FMA_MATH"
std::string_view label(LegacyMathType math);  // "FMA math"

// The math type the convolution descriptor asks for, as PyTorch and TensorFlow set it:
// fp32 -> fma (no TF32), tf32 -> default (TF32 permitted on FP32 data), fp16/bf16 -> tensor_op.
// Nothing for fp8: the legacy API has no FP8 convolution.
std::optional<LegacyMathType> legacy_math_type(Precision precision);

// Why an algorithm that cuDNN reports with `math` may not run `precision`, or nothing. fp32 takes
// FMA kernels only; no precision takes the conversion variant, which may down-convert inputs.
std::optional<std::string> legacy_math_rejection(Precision precision, LegacyMathType math);

// The tensor_cores note for an algorithm run with `math`: "yes", "no", or "permitted" where cuDNN
// may or may not use TF32 Tensor Cores (default math from compute capability 8.0).
std::string tensor_cores_note(LegacyMathType math, int cc_major);

// Algorithm names of cudnnConvolutionFwdAlgo_t / cudnnConvolutionBwdDataAlgo_t /
// cudnnConvolutionBwdFilterAlgo_t by value: "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"
// and its short form "IMPLICIT_PRECOMP_GEMM" ("ALGO_1" for CUDNN_CONVOLUTION_BWD_DATA_ALGO_1).
// A value the table does not know is named UNKNOWN_<value>.
int legacy_algo_count(Pass pass);
std::string legacy_algo_name(Pass pass, int algo);
std::string legacy_algo_short_name(Pass pass, int algo);
// "IMPLICIT_PRECOMP_GEMM (tensor op math)": one candidate, since cuDNN may list an algorithm
// once per math type.
std::string legacy_candidate_label(Pass pass, int algo, LegacyMathType math);

// One result of cudnnGetConvolution*Algorithm_v7, with the workspace the algorithm needs.
struct LegacyAlgoResult {
  int algo = 0;
  std::optional<std::string> failure;  // cuDNN's status when it was not a success
  LegacyMathType math = LegacyMathType::default_math;
  std::uint64_t workspace_bytes = 0;
};

struct LegacySelection {
  std::vector<std::size_t> accepted;  // indices into the results, best first, at most `wanted`
  int rejected = 0;                   // results looked at and refused
  std::string first_rejection;        // "WINOGRAD (FMA math): needs 1234 bytes of workspace"
};

// The heuristic's results (best first) that may run: a success, a math type the precision allows,
// a workspace within the limit. Stops after `wanted` accepted results.
LegacySelection select_legacy_algos(Pass pass, Precision precision,
                                    const std::vector<LegacyAlgoResult>& results,
                                    std::uint64_t workspace_limit_bytes, std::size_t wanted);

}  // namespace lb::cuda::logic
