#include "harness/model/accounting.hpp"

#include <sstream>
#include <stdexcept>
#include <utility>

namespace lb {

std::string_view name(PassSet s) { return s == PassSet::fwd ? "fwd" : "train"; }

std::optional<PassSet> parse_pass_set(std::string_view text) {
  for (PassSet s : {PassSet::fwd, PassSet::train})
    if (name(s) == text) return s;
  return std::nullopt;
}

namespace {
std::string join_dims(const std::vector<std::int64_t>& dims) {
  std::string out;
  for (auto d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d);
  return out;
}
}  // namespace

std::optional<std::string> indexing_overflow(const Op& op, int batch) {
  // The forward problem's tensors are the ones every training pass reads or writes.
  const auto dims = tensor_dims(problem_for(op, batch, Pass::fwd, Precision::fp32));
  std::vector<std::pair<std::string, const std::vector<std::int64_t>*>> tensors;
  if (op.kind == OpKind::conv) {
    tensors = {{"x", &dims.inputs[0]}, {"w", &dims.inputs[1]}, {"y", &dims.output}};
  } else if (!is_memory_bound(op.kind)) {
    tensors = {{"A", &dims.inputs[0]}, {"B", &dims.inputs[1]}, {"C", &dims.output}};
  } else {
    for (std::size_t i = 0; i < dims.inputs.size(); ++i)
      tensors.emplace_back("input " + std::to_string(i), &dims.inputs[i]);
    tensors.emplace_back("output", &dims.output);
  }
  for (const auto& [tensor, shape] : tensors) {
    // In double: the product of several 32-bit dimensions may not fit 64 bits.
    double elements = 1;
    for (auto d : *shape) elements *= static_cast<double>(d);
    if (elements > static_cast<double>(max_tensor_elements)) {
      std::ostringstream o;
      o.precision(0);
      o << std::fixed << "tensor " << tensor << " (" << join_dims(*shape) << ") holds " << elements
        << " elements at batch " << batch << ", more than 32-bit indexing allows ("
        << max_tensor_elements << ")";
      return o.str();
    }
  }
  return std::nullopt;
}

Problem problem_for(const Op& op, int batch, Pass pass, Precision precision) {
  if (batch < 1)
    throw std::invalid_argument("batch must be positive, got " + std::to_string(batch));
  if (pass == Pass::fwd_training && op.kind != OpKind::batch_norm)
    throw std::invalid_argument("pass fwd_training is batch norm's only; " + op.id + " is a " +
                                std::string(name(op.kind)));
  Problem problem;
  problem.precision = precision;
  GemmShape g = op.gemm;
  switch (op.kind) {
    case OpKind::conv: {
      ConvShape s = op.conv;
      s.n = batch;
      problem.op = ConvProblem{s, pass};
      return problem;
    }
    case OpKind::linear:
      g.m = op.tokens * batch;
      break;
    case OpKind::bmm:
      g.batch = op.heads * batch;
      break;
    default: {
      MemoryShape s = op.memory;
      s.dims.at(0) = batch;
      problem.op = MemoryProblem{s, pass};
      return problem;
    }
  }
  problem.op = GemmProblem{gemm_for_pass(g, pass)};
  return problem;
}

std::vector<Pass> passes_for(const Op& op, PassSet set) {
  if (set == PassSet::fwd) return {Pass::fwd};
  if (op.kind == OpKind::batch_norm) return {Pass::fwd_training, Pass::bwd_data};
  if (is_memory_bound(op.kind)) {
    if (op.memory.broadcast) return {Pass::fwd};
    return {Pass::fwd, Pass::bwd_data};
  }
  if (op.input_layer) return {Pass::fwd, Pass::bwd_weights};
  return {Pass::fwd, Pass::bwd_data, Pass::bwd_weights};
}

std::uint64_t memory_bytes(const Problem& problem) {
  // Every tensor the problem touches is resident at once: exactly the tensors min_bytes counts
  // (a whole number of bytes, exact in the double below 2^53). Beyond 2^64 the conversion
  // would be undefined; a checked problem never gets there (3 tensors of at most 2^31 - 1
  // elements of at most 4 bytes), an unchecked one is refused.
  const double bytes = min_bytes(problem);
  if (!(bytes < 18446744073709551616.0))  // 2^64
    throw std::overflow_error("a problem needing 2^64 bytes or more");
  return static_cast<std::uint64_t>(bytes);
}

ModelTotals totals(const Model& model, int batch, PassSet set) {
  ModelTotals t;
  for (const auto& op : model.ops) {
    for (Pass pass : passes_for(op, set))
      t.flop += op.count() * flop_count(problem_for(op, batch, pass, Precision::fp32));
    t.layers += op.count();
  }
  t.ops = static_cast<int>(model.ops.size());
  t.flop_per_image = t.flop / batch;
  return t;
}

}  // namespace lb
