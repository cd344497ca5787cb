#pragma once
// The workload catalogue: models as data files (bench/models/*.json, schema in
// bench/models/SCHEMA.md), their operations, and the accounting per batch/pass/precision.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/problem.hpp"

namespace lb {

// How an operation grows with the batch size B is fixed by its kind:
//   conv:   N = B
//   linear: y = x . W^T with M = tokens x B, N = out_features, K = in_features
//   bmm:    batched product with batch count = heads x B
enum class OpKind { conv, linear, bmm };
std::string_view name(OpKind k);

struct Op {
  std::string id;
  OpKind kind = OpKind::conv;
  std::vector<std::string> layers;  // the model's layer names sharing this shape; count = size
  // conv: the shape at batch 1 (n = 1). linear/bmm: the GEMM at batch 1 (batch = heads for bmm).
  ConvShape conv;
  GemmShape gemm;
  std::int64_t tokens = 1;  // linear: rows per image
  std::int64_t heads = 1;   // bmm: products per image
  // The network's input layer: a training step computes no data gradient for it.
  bool input_layer = false;

  int count() const { return static_cast<int>(layers.size()); }
};

struct Model {
  std::string name;    // "resnet50": what --model takes
  std::string title;   // "ResNet-50 v1.5"
  std::string source;  // where the architecture is defined
  std::string file;    // the data file it came from
  std::vector<Op> ops;
};

// Thrown for a bad workload file; what() is "<file>: ops[3].stride_h: must be a positive integer".
struct WorkloadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Model load_model_file(const std::filesystem::path& file);
// The models shipped with layerbench, found next to the binary or under the install prefix.
std::vector<Model> load_builtin_models();

// The executed problem for an op at batch B, pass and precision.
Problem problem_for(const Op& op, int batch, Pass pass, Precision precision);
// The passes a pass set runs for this op: forward = {fwd}; training = {fwd, bwd_data,
// bwd_weights}, without bwd_data for the input layer.
enum class PassSet { fwd, train };
std::string_view name(PassSet s);
std::vector<Pass> passes_for(const Op& op, PassSet set);

// Device memory needed by a problem: inputs, weights and output at the precision's storage
// sizes (the backend adds its workspace).
std::uint64_t memory_bytes(const Problem& problem);

}  // namespace lb
