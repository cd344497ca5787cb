#include "harness/model/ops.hpp"

namespace lb {

std::string_view name(OpKind k) {
  switch (k) {
    case OpKind::conv:
      return "conv";
    case OpKind::linear:
      return "linear";
    case OpKind::bmm:
      return "bmm";
    case OpKind::batch_norm:
      return "batch_norm";
    case OpKind::layer_norm:
      return "layer_norm";
    case OpKind::eltwise:
      return "eltwise";
    case OpKind::binary:
      return "binary";
    case OpKind::pool:
      return "pool";
    case OpKind::softmax:
      return "softmax";
  }
  return "?";
}

std::optional<OpKind> parse_op_kind(std::string_view text) {
  for (OpKind k : all_op_kinds)
    if (name(k) == text) return k;
  return std::nullopt;
}

bool is_memory_bound(OpKind k) {
  return k != OpKind::conv && k != OpKind::linear && k != OpKind::bmm;
}

std::string_view kind_group(OpKind k) {
  switch (k) {
    case OpKind::conv:
      return kind_groups[0];
    case OpKind::linear:
    case OpKind::bmm:
      return kind_groups[1];
    case OpKind::batch_norm:
    case OpKind::layer_norm:
      return kind_groups[2];
    case OpKind::eltwise:
    case OpKind::binary:
      return kind_groups[3];
    case OpKind::pool:
      return kind_groups[4];
    case OpKind::softmax:
      return kind_groups[5];
  }
  return "?";
}

Precision precision_in_model(OpKind k, Precision model) {
  return is_memory_bound(k) ? memory_bound_precision(model) : model;
}

const Model* find_model(const std::vector<Model>& models, std::string_view name) {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace lb
