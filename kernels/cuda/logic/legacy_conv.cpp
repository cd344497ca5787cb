#include "kernels/cuda/logic/legacy_conv.hpp"

#include <array>

namespace lb::cuda::logic {

namespace {

// The enumerators of cuDNN 9's cudnn_ops.h, in value order.
constexpr std::array<std::string_view, 8> fwd_algos = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};
constexpr std::array<std::string_view, 6> bwd_data_algos = {
    "0", "1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
constexpr std::array<std::string_view, 7> bwd_filter_algos = {
    "0", "1", "FFT", "3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};

std::string_view algo_prefix(Pass pass) {
  switch (pass) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:
      return "CUDNN_CONVOLUTION_FWD_ALGO_";
    case Pass::bwd_data:
      return "CUDNN_CONVOLUTION_BWD_DATA_ALGO_";
    case Pass::bwd_weights:
      return "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_";
  }
  return "";
}

// The enumerator's name after the prefix; a value the table does not know is UNKNOWN_<value>.
template <std::size_t N>
std::string table_entry(const std::array<std::string_view, N>& table, int algo) {
  if (algo >= 0 && static_cast<std::size_t>(algo) < N) return std::string(table[algo]);
  return "UNKNOWN_" + std::to_string(algo);
}

std::string enumerator_suffix(Pass pass, int algo) {
  switch (pass) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:
      return table_entry(fwd_algos, algo);
    case Pass::bwd_data:
      return table_entry(bwd_data_algos, algo);
    case Pass::bwd_weights:
      return table_entry(bwd_filter_algos, algo);
  }
  return table_entry(fwd_algos, -1);
}

}  // namespace

std::string_view name(LegacyMathType math) {
  switch (math) {
    case LegacyMathType::default_math:
      return "CUDNN_DEFAULT_MATH";
    case LegacyMathType::tensor_op:
      return "CUDNN_TENSOR_OP_MATH";
    case LegacyMathType::tensor_op_allow_conversion:
      return "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION";
    case LegacyMathType::fma:
      return "CUDNN_FMA_MATH";
  }
  return "unknown math type";
}

std::string_view label(LegacyMathType math) {
  switch (math) {
    case LegacyMathType::default_math:
      return "default math";
    case LegacyMathType::tensor_op:
      return "tensor op math";
    case LegacyMathType::tensor_op_allow_conversion:
      return "tensor op math with conversion";
    case LegacyMathType::fma:
      return "FMA math";
  }
  return "unknown math type";
}

std::optional<LegacyMathType> legacy_math_type(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return LegacyMathType::fma;
    case Precision::tf32:
      return LegacyMathType::default_math;
    case Precision::fp16:
    case Precision::bf16:
      return LegacyMathType::tensor_op;
    case Precision::fp8:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> legacy_math_rejection(Precision precision, LegacyMathType math) {
  if (precision == Precision::fp8) return "the legacy API has no FP8 convolution";
  if (math == LegacyMathType::tensor_op_allow_conversion)
    return "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION may down-convert the inputs";
  if (precision == Precision::fp32 && math != LegacyMathType::fma)
    return std::string(name(math)) + " may use Tensor Cores (TF32 math), not allowed for fp32";
  return std::nullopt;
}

std::string tensor_cores_note(LegacyMathType math, int cc_major) {
  if (math == LegacyMathType::fma) return "no";
  if (math == LegacyMathType::default_math && cc_major < 8) return "no";
  return "permitted";
}

int legacy_algo_count(Pass pass) {
  switch (pass) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:
      return static_cast<int>(fwd_algos.size());
    case Pass::bwd_data:
      return static_cast<int>(bwd_data_algos.size());
    case Pass::bwd_weights:
      return static_cast<int>(bwd_filter_algos.size());
  }
  return 0;
}

std::string legacy_algo_short_name(Pass pass, int algo) {
  std::string suffix = enumerator_suffix(pass, algo);
  // The backward passes number some algorithms: "ALGO_1" reads better than "1".
  if (suffix.find_first_not_of("0123456789") == std::string::npos) suffix = "ALGO_" + suffix;
  return suffix;
}

std::string legacy_algo_name(Pass pass, int algo) {
  return std::string(algo_prefix(pass)) + enumerator_suffix(pass, algo);
}

std::string legacy_candidate_label(Pass pass, int algo, LegacyMathType math) {
  return legacy_algo_short_name(pass, algo) + " (" + std::string(label(math)) + ")";
}

LegacySelection select_legacy_algos(Pass pass, Precision precision,
                                    const std::vector<LegacyAlgoResult>& results,
                                    std::uint64_t workspace_limit_bytes, std::size_t wanted) {
  LegacySelection s;
  auto reject = [&](const LegacyAlgoResult& r, const std::string& why) {
    if (s.rejected++ == 0)
      s.first_rejection = legacy_candidate_label(pass, r.algo, r.math) + ": " + why;
  };
  for (std::size_t i = 0; i < results.size() && s.accepted.size() < wanted; ++i) {
    const LegacyAlgoResult& r = results[i];
    if (r.failure) {
      reject(r, *r.failure);
    } else if (const auto why = legacy_math_rejection(precision, r.math)) {
      reject(r, *why);
    } else if (r.workspace_bytes > workspace_limit_bytes) {
      reject(r, "needs " + std::to_string(r.workspace_bytes) + " bytes of workspace");
    } else {
      s.accepted.push_back(i);
    }
  }
  return s;
}

}  // namespace lb::cuda::logic
