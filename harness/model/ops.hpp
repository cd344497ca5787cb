#pragma once
// The op vocabulary: the kinds of operation a model is made of, an op (one shape and the layers
// sharing it) and a model (its ops and the image it reads).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/api/problem.hpp"
#include "op_kinds_table.hpp"  // OpKind and op_kind_table, generated from bench/op_kinds.json

namespace lb {

class JsonField;

// How an operation grows with the batch size B is fixed by its kind:
//   conv:   N = B
//   linear: y = x . W^T with M = tokens x B, N = out_features, K = in_features
//   bmm:    batched product with batch count = heads x B
//   the memory-bound kinds: tensor B x dims
const OpKindRow& row(OpKind k);
std::string_view name(OpKind k);
std::optional<OpKind> parse_op_kind(std::string_view text);
// The kind a file's field names (a model file's op, a results file's point); otherwise throws
// the field's InputError, "must be one of conv, linear, ...".
OpKind read_op_kind(const JsonField& field);
bool is_memory_bound(OpKind k);
// The group a model's time for this kind is counted in (results' kind_ms and kind_share), one
// of op_kind_groups.
std::string_view kind_group(OpKind k);

// The precision an op of this kind runs in when its model runs in `model`: the convolutions and
// GEMMs in `model`, the memory-bound kinds in memory_bound_precision(model).
Precision precision_in_model(OpKind k, Precision model);

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
  std::string name;         // "resnet50": what --model takes
  std::string title;        // "ResNet-50 v1.5"
  std::string source;       // where the architecture is defined
  std::string file;         // the data file it came from
  std::string file_sha256;  // its content's SHA-256 (hex), which a results file records
  std::string notes;        // optional: what the ops cover and leave out
  std::int64_t input_channels = 0, input_height = 0, input_width = 0;  // the image it reads
  std::vector<Op> ops;
};

// The model called `name`, or nullptr.
const Model* find_model(const std::vector<Model>& models, std::string_view name);

}  // namespace lb
