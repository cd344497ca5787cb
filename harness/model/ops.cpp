#include "harness/model/ops.hpp"

#include <stdexcept>

#include "harness/util/json_fields.hpp"

namespace lb {

const OpKindRow& row(OpKind k) {
  for (const auto& r : op_kind_table)
    if (r.kind == k) return r;
  throw std::logic_error("row: an OpKind outside op_kind_table");
}

std::string_view name(OpKind k) { return row(k).name; }

std::optional<OpKind> parse_op_kind(std::string_view text) {
  for (const auto& r : op_kind_table)
    if (r.name == text) return r.kind;
  return std::nullopt;
}

OpKind read_op_kind(const JsonField& field) {
  if (const auto kind = parse_op_kind(field.string())) return *kind;
  std::string names;
  for (const auto& r : op_kind_table) names += (names.empty() ? "" : ", ") + std::string(r.name);
  field.expected("one of " + names);
}

bool is_memory_bound(OpKind k) { return row(k).memory_bound; }

std::string_view kind_group(OpKind k) { return row(k).group; }

Precision precision_in_model(OpKind k, Precision model) {
  return is_memory_bound(k) ? memory_bound_precision(model) : model;
}

const Model* find_model(const std::vector<Model>& models, std::string_view name) {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace lb
