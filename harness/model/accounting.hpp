#pragma once
// Op -> problem accounting: the problem an op executes at a batch, pass and precision, the
// passes a pass set runs, the memory a problem needs and a model's totals.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/api/precision.hpp"
#include "harness/api/problem.hpp"
#include "harness/model/ops.hpp"

namespace lb {

// The libraries index tensors with 32-bit integers: no tensor may hold more elements.
inline constexpr std::int64_t max_tensor_elements = 2147483647;  // INT32_MAX
// Why an op cannot run at this batch (a tensor over max_tensor_elements), or nothing.
// The loader checks batch 1; callers check the batch they are asked for.
std::optional<std::string> indexing_overflow(const Op& op, int batch);

// The executed problem for an op at batch B, pass and precision.
Problem problem_for(const Op& op, int batch, Pass pass, Precision precision);
// The passes of one step of a pass set for this op: forward = {fwd}; training = {fwd, bwd_data,
// bwd_weights}, without bwd_data for the input layer; memory-bound kinds have no weights
// gradient to time: {fwd, bwd_data}, and a broadcast add {fwd} (its input's gradient passes
// through; the embedding's, a sum over the batch, is not measured); batch norm trains with
// {fwd_training, bwd_data} (its fwd is inference's). A run of the training set also measures
// the forward set's passes (harness/plan/plan.cpp), so it reports inference too.
enum class PassSet { fwd, train };
std::string_view name(PassSet s);
std::optional<PassSet> parse_pass_set(std::string_view text);
std::vector<Pass> passes_for(const Op& op, PassSet set);

// Device memory needed by a problem: inputs, weights and output at the precision's storage
// sizes (the backend adds its workspace). Throws std::overflow_error at 2^64 bytes or more.
std::uint64_t memory_bytes(const Problem& problem);

// A model's work at a batch: every op's passes times its layer count.
struct ModelTotals {
  double flop = 0;            // 2 x multiply-adds, whole batch
  double flop_per_image = 0;  // flop / batch
  int ops = 0;                // distinct shapes
  int layers = 0;             // layers they stand for
};
ModelTotals totals(const Model& model, int batch, PassSet set);

}  // namespace lb
