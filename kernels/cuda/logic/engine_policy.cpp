#include "kernels/cuda/logic/engine_policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace lb::cuda::logic {

const std::array<EngineRule, 5>& engine_rules() {
  // FFT and Winograd engines are allowed for every precision, as PyTorch filters neither: the
  // validation that every point passes holds their rounding to the precision's tolerance.
  //                               tensor core       down-    reduction
  //                               allowed preferred convert  below FP32
  static const std::array<EngineRule, 5> rules{{
      {Precision::fp32, false, false, false, false},
      {Precision::tf32, true, true, false, false},
      {Precision::fp16, true, false, false, true},
      {Precision::bf16, true, false, false, true},
      {Precision::fp8, true, false, false, true},
  }};
  return rules;
}

const EngineRule& engine_rule(Precision precision) {
  for (const EngineRule& rule : engine_rules())
    if (rule.precision == precision) return rule;
  throw std::invalid_argument("no engine rule for precision " + std::string(name(precision)));
}

std::optional<std::string> engine_rejection(Precision precision, const EngineNotes& notes) {
  const EngineRule& rule = engine_rule(precision);
  if (notes.tensor_core && !rule.tensor_core_allowed)
    return "uses Tensor Cores (TF32 math), not allowed for " + std::string(name(precision));
  if (notes.down_convert_inputs && !rule.down_convert_allowed) return "down-converts its inputs";
  if (notes.reduced_precision_reduction && !rule.reduced_precision_reduction_allowed)
    return "reduces in less than FP32";
  return std::nullopt;
}

std::vector<std::size_t> preferred_engines(Precision precision,
                                           const std::vector<EngineNotes>& accepted) {
  std::vector<std::size_t> all, tensor_core;
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    all.push_back(i);
    if (accepted[i].tensor_core) tensor_core.push_back(i);
  }
  if (engine_rule(precision).tensor_core_preferred && !tensor_core.empty()) return tensor_core;
  return all;
}

std::uint64_t workspace_limit(AutotuneWorkspace policy, AlgoChoice algo, std::uint64_t option_bytes,
                              std::uint64_t available_bytes) {
  if (algo != AlgoChoice::autotune || policy == AutotuneWorkspace::limit) return option_bytes;
  return std::max(option_bytes, available_bytes);
}

}  // namespace lb::cuda::logic
