#pragma once
// Checked reading of the fields of a parsed JSON document from outside (model files, facts, the
// GPU datasheet, results points), after json_limits bounded the parse. Every error is one line:
// "<file>: <path>: missing", "...: must be <what>, is <value>" or "...: <rule the value breaks>".
// Integers are range-checked on the JSON value: nlohmann's is a plain cast (UB for 1e30).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/util/input_error.hpp"

namespace lb {

struct FieldError : InputError {
  using InputError::InputError;
};

// One value of a document being read: the value, the file it came from and its path there
// ("ops[3].k"; empty for the document itself). The file's name must outlive the field.
class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string_view file, std::string path = "")
      : value_(&value), file_(file), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }

  // Throws FieldError "<file>: <path>: <problem>".
  [[noreturn]] void fail(const std::string& problem) const;
  // Throws FieldError "<file>: <path>: must be <what>, is <the value>".
  [[noreturn]] void expected(std::string_view what) const;

  // Objects. `what` describes the object for the error when the value is not one.
  void require_object(std::string_view what = "an object") const;
  bool has(std::string_view key) const;              // present (null counts as present)
  JsonField operator[](std::string_view key) const;  // an object's member; absent: "missing"
  std::optional<JsonField> optional(std::string_view key) const;  // absent: nullopt
  // Refuses any member not in `keys` as "<path>.<key>: unknown field".
  void allow_only(std::initializer_list<std::string_view> keys) const;
  template <class Keys>
  void allow_only(const Keys& keys) const {
    for (const auto& item : value_->items()) {
      bool known = false;
      for (std::string_view key : keys) known = known || key == item.key();
      if (!known) member(item.key()).fail("unknown field");
    }
  }

  // Arrays: the number of elements, checked against [min_size, max_size] with `what` (e.g.
  // "a non-empty array of strings") in the error; and one element.
  std::size_t array(std::string_view what, std::size_t min_size = 0,
                    std::size_t max_size = std::numeric_limits<std::size_t>::max()) const;
  JsonField operator[](std::size_t index) const;

  std::string string() const;  // any string
  std::string text() const;    // a non-empty string
  bool boolean() const;
  double number() const;           // finite
  double positive_number() const;  // finite and > 0

  // An integer in [min, max]: a JSON integer (3.0 and 1e30 are not), bounded before it is
  // converted. "must be a positive integer, is 0", "must be at most 2147483647, is 3000000000".
  template <class T>
  T integer(T min = std::numeric_limits<T>::min(), T max = std::numeric_limits<T>::max()) const {
    const auto describe = [&]() -> std::string {
      if (std::cmp_equal(min, 1)) return "a positive integer";
      if (std::cmp_equal(min, 0)) return "a non-negative integer";
      if (min == std::numeric_limits<T>::min()) return "an integer";
      return "an integer of at least " + std::to_string(min);
    };
    if (!value_->is_number_integer()) expected(describe());
    if (value_->is_number_unsigned()) {
      const auto v = value_->get<std::uint64_t>();
      if (std::cmp_greater(v, max)) expected("at most " + std::to_string(max));
      if (std::cmp_less(v, min)) expected(describe());
      return static_cast<T>(v);
    }
    const auto v = value_->get<std::int64_t>();
    if (std::cmp_greater(v, max)) expected("at most " + std::to_string(max));
    if (std::cmp_less(v, min)) expected(describe());
    return static_cast<T>(v);
  }

 private:
  JsonField member(std::string_view key) const;  // the path of `key`, without checks

  const nlohmann::json* value_;
  std::string_view file_;
  std::string path_;
};

}  // namespace lb
