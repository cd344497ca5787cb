#pragma once
// The workload catalogue: models as data files (bench/models/*.json, schema in
// bench/models/SCHEMA.md), their operations, and the accounting per batch/pass/precision.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/input_error.hpp"
#include "harness/problem.hpp"

namespace lb {

inline constexpr const char* model_schema = "layerbench-model/1";

// How an operation grows with the batch size B is fixed by its kind:
//   conv:   N = B
//   linear: y = x . W^T with M = tokens x B, N = out_features, K = in_features
//   bmm:    batched product with batch count = heads x B
//   batch_norm, layer_norm, eltwise, binary, pool, softmax: memory-bound, tensor B x dims
enum class OpKind { conv, linear, bmm, batch_norm, layer_norm, eltwise, binary, pool, softmax };
inline constexpr OpKind all_op_kinds[] = {OpKind::conv,       OpKind::linear,     OpKind::bmm,
                                          OpKind::batch_norm, OpKind::layer_norm, OpKind::eltwise,
                                          OpKind::binary,     OpKind::pool,       OpKind::softmax};
std::string_view name(OpKind k);
std::optional<OpKind> parse_op_kind(std::string_view text);
bool is_memory_bound(OpKind k);

// The groups a model's time is shared among (results' kind_ms and kind_share):
// convolution (conv), gemm (linear, bmm), normalisation (batch_norm, layer_norm),
// elementwise (eltwise, binary), pooling (pool), softmax.
inline constexpr std::string_view kind_groups[] = {"convolution", "gemm",    "normalisation",
                                                   "elementwise", "pooling", "softmax"};
std::string_view kind_group(OpKind k);

struct Op {
  std::string id;
  OpKind kind = OpKind::conv;
  std::vector<std::string> layers;  // the model's layer names sharing this shape; count = size
  // conv: the shape at batch 1 (n = 1). linear/bmm: the GEMM at batch 1 (batch = heads for bmm).
  // Memory-bound kinds: the tensor at batch 1 (dims[0] = 1).
  ConvShape conv;
  GemmShape gemm;
  MemoryShape memory;
  std::int64_t tokens = 1;  // linear: rows per image
  std::int64_t heads = 1;   // bmm: products per image
  // The network's input layer: a training step computes no data gradient for it.
  bool input_layer = false;
  // batch_norm reading a convolution's output directly: inference can fold it into that
  // convolution's weights and bias (the results' "folded" estimate drops it).
  bool after_conv = false;
  std::string note;  // optional remark from the data file

  int count() const { return static_cast<int>(layers.size()); }
};

struct Model {
  std::string name;    // "resnet50": what --model takes
  std::string title;   // "ResNet-50 v1.5"
  std::string source;  // where the architecture is defined
  std::string file;    // the data file it came from
  std::string notes;   // optional: what the ops cover and leave out
  std::int64_t input_channels = 0, input_height = 0, input_width = 0;  // the image it reads
  std::vector<Op> ops;
};

// Thrown for a bad workload file; what() is "<file>: ops[3].stride_h: must be a positive integer".
struct WorkloadError : InputError {
  using InputError::InputError;
};

// Limits of a model file (bench/models/SCHEMA.md, "Limits", says where they come from); the
// loader also bounds the nesting depth to the schema's and every size to max_tensor_elements.
inline constexpr std::size_t max_model_file_bytes = 4 << 20;
inline constexpr std::size_t max_model_ops = 4096;

Model load_model_file(const std::filesystem::path& file);
// The same from text already read; `file` names it in errors.
Model load_model_text(std::string_view text, const std::string& file);
// Several files at once; a model name defined twice is an error naming both files.
std::vector<Model> load_models(const std::vector<std::filesystem::path>& files);
// The shipped model files (data_dir()/models/*.json, sorted by name).
std::vector<std::filesystem::path> builtin_model_files();
// The models shipped with layerbench, found next to the binary or under the install prefix.
std::vector<Model> load_builtin_models();
const Model* find_model(const std::vector<Model>& models, std::string_view name);

// The libraries index tensors with 32-bit integers: no tensor may hold more elements.
inline constexpr std::int64_t max_tensor_elements = 2147483647;  // INT32_MAX
// Why an op cannot run at this batch (a tensor over max_tensor_elements), or nothing.
// The loader checks batch 1; callers check the batch they are asked for.
std::optional<std::string> indexing_overflow(const Op& op, int batch);

// The executed problem for an op at batch B, pass and precision.
Problem problem_for(const Op& op, int batch, Pass pass, Precision precision);
// The passes a pass set runs for this op: forward = {fwd}; training = {fwd, bwd_data,
// bwd_weights}, without bwd_data for the input layer; memory-bound kinds have no weights
// gradient to time: {fwd, bwd_data}, and a broadcast add {fwd} (its input's gradient passes
// through; the embedding's, a sum over the batch, is not measured).
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
