#include "harness/util/json_fields.hpp"

#include <cmath>

namespace lb {

namespace {
// The value as the error shows it: its JSON text, cut short; a non-finite double (which JSON
// text cannot hold, a document built in memory can) by name.
std::string shown(const nlohmann::json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    return std::isnan(v.get<double>()) ? "NaN" : v.get<double>() > 0 ? "inf" : "-inf";
  constexpr std::size_t longest = 40;
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > longest) text = text.substr(0, longest) + "...";
  return text;
}
}  // namespace

void JsonField::fail(const std::string& problem) const {
  std::string message(file_);
  if (!path_.empty()) message += (message.empty() ? "" : ": ") + path_;
  throw FieldError(message + (message.empty() ? "" : ": ") + problem);
}

void JsonField::expected(std::string_view what) const {
  fail("must be " + std::string(what) + ", is " + shown(*value_));
}

void JsonField::require_object(std::string_view what) const {
  if (!value_->is_object()) expected(what);
}

bool JsonField::has(std::string_view key) const {
  return value_->is_object() && value_->contains(key);
}

JsonField JsonField::member(std::string_view key) const {
  return {*value_, file_, path_.empty() ? std::string(key) : path_ + "." + std::string(key)};
}

JsonField JsonField::operator[](std::string_view key) const {
  require_object();
  JsonField field = member(key);
  const auto it = value_->find(key);
  if (it == value_->end()) field.fail("missing");
  field.value_ = &*it;
  return field;
}

std::optional<JsonField> JsonField::optional(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return (*this)[key];
}

void JsonField::allow_only(std::initializer_list<std::string_view> keys) const {
  allow_only<std::initializer_list<std::string_view>>(keys);
}

std::size_t JsonField::array(std::string_view what, std::size_t min_size,
                             std::size_t max_size) const {
  if (!value_->is_array() || value_->size() < min_size || value_->size() > max_size) expected(what);
  return value_->size();
}

JsonField JsonField::operator[](std::size_t index) const {
  return {value_->at(index), file_, path_ + "[" + std::to_string(index) + "]"};
}

std::string JsonField::string() const {
  if (!value_->is_string()) expected("a string");
  return value_->get<std::string>();
}

std::string JsonField::text() const {
  if (!value_->is_string() || value_->get_ref<const std::string&>().empty())
    expected("a non-empty string");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean()) expected("true or false");
  return value_->get<bool>();
}

double JsonField::number() const {
  if (!value_->is_number() || !std::isfinite(value_->get<double>())) expected("a finite number");
  return value_->get<double>();
}

double JsonField::positive_number() const {
  if (!value_->is_number() || !(value_->get<double>() > 0) || !std::isfinite(value_->get<double>()))
    expected("a positive number");
  return value_->get<double>();
}

}  // namespace lb
