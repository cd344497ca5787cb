#pragma once
// Which cuDNN engines a precision may time (one rule per precision in a table, so that the choice
// reads and is tested as data), and how much workspace they may take. Pure logic; the rules and
// where they follow or leave PyTorch's: docs/measuring.md, "Precisions".
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/precision.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda::logic {

// The numerical facts cuDNN attaches to an engine (CUDNN_ATTR_ENGINE_NUMERICAL_NOTE).
struct EngineNotes {
  bool tensor_core = false;
  bool down_convert_inputs = false;
  bool reduced_precision_reduction = false;
  // CUDNN_NUMERICAL_NOTE_FFT, or any of the CUDNN_NUMERICAL_NOTE_WINOGRAD notes: allowed for
  // every precision, and recorded in the notes of a point whose chosen engine has it.
  bool fft_or_winograd = false;
};

struct EngineRule {
  Precision precision;
  bool tensor_core_allowed;
  // Tensor Core engines are timed first, and engines without them are dropped when any Tensor
  // Core engine is on offer.
  bool tensor_core_preferred;
  bool down_convert_allowed;
  bool reduced_precision_reduction_allowed;
};

const std::array<EngineRule, 5>& engine_rules();
const EngineRule& engine_rule(Precision precision);

// Why an engine may not run a precision, or nothing when it may.
std::optional<std::string> engine_rejection(Precision precision, const EngineNotes& notes);

// The engines to time, in order, from the accepted ones in the library's order: where the rule
// prefers Tensor Cores and any accepted engine has them, those alone, in their order.
std::vector<std::size_t> preferred_engines(Precision precision,
                                           const std::vector<EngineNotes>& accepted);

// The workspace a convolution's candidates may take. The heuristic's single choice, or autotuning
// under AutotuneWorkspace::limit: --workspace-mb. Autotuning under free_memory: what the GPU has
// free after the point's own tensors (`available_bytes`, within --memory-limit where one is set),
// as PyTorch's benchmark mode lets cuDNN take the largest block its allocator can find; never less
// than --workspace-mb, which the point was already checked to fit.
std::uint64_t workspace_limit(AutotuneWorkspace policy, AlgoChoice algo, std::uint64_t option_bytes,
                              std::uint64_t available_bytes);

}  // namespace lb::cuda::logic
