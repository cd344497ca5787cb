#include "harness/util/json_limits.hpp"

#include <algorithm>
#include <set>
#include <system_error>
#include <vector>

#include "harness/os/platform.hpp"

namespace lb {

namespace {
using nlohmann::json;

// The SAX pass: builds nothing, keeps only the open containers (at most max_depth of them), so
// that each error names the value's path as the loaders write it ("ops[3].stride_h").
class LimitChecker : public nlohmann::json_sax<json> {
 public:
  LimitChecker(std::string_view text, const std::string& name, const JsonLimits& limits)
      : text_(text), name_(name), limits_(limits) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  // nlohmann keeps the last of two equal keys in one object, which would hide a typo; the
  // second one is rejected instead.
  bool key(string_t& key) override {
    Container& object = open_.back();
    object.key = key;
    if (!object.keys.insert(key).second) fail(object.path, "duplicate key \"" + key + "\"");
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) override {
    // position counts from 1 and may point one past the end of the text.
    const auto end = std::min<std::size_t>(position == 0 ? 0 : position - 1, text_.size());
    const auto line =
        "line " + std::to_string(1 + std::count(text_.begin(), text_.begin() + end, '\n'));
    // 406: a number beyond a double's range ("1e999"), the one error that has a field.
    if (e.id == 406) {
      const std::string token =
          last_token.size() <= 40 ? last_token : last_token.substr(0, 40) + "...";
      fail(line + ": " + child_path(), "number " + token + " is out of range (beyond a double's)");
    }
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line L,
    // column C: <what>"; keep <what>, the line is stated here.
    std::string what = e.what();
    if (auto column = what.find("column"); column != std::string::npos)
      if (auto colon = what.find(": ", column); colon != std::string::npos)
        what = what.substr(colon + 2);
    fail(line, "not valid JSON: " + what);
  }

 private:
  struct Container {
    std::string path;  // "", "input", "ops[3]"
    bool is_object;
    std::set<std::string> keys;  // objects: the keys read so far
    std::string key;             // objects: the key whose value is being read
    std::size_t elements;        // arrays: the elements read so far
  };

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw JsonFileError(name_ + ": " + (where.empty() ? "" : where + ": ") + message);
  }

  // The path of the value about to be read inside the innermost open container.
  std::string child_path() const {
    if (open_.empty()) return "";
    const Container& parent = open_.back();
    if (!parent.is_object) return parent.path + "[" + std::to_string(parent.elements) + "]";
    return parent.path.empty() ? parent.key : parent.path + "." + parent.key;
  }

  bool value() {
    if (!open_.empty() && !open_.back().is_object) ++open_.back().elements;
    return true;
  }
  bool open(bool is_object) {
    std::string path = child_path();
    if (open_.size() >= static_cast<std::size_t>(limits_.max_depth))
      fail(path, "nested deeper than " + std::to_string(limits_.max_depth) +
                     " levels of objects and arrays (the limit for this file)");
    value();
    open_.push_back({std::move(path), is_object, {}, {}, 0});
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  std::string_view text_;
  const std::string& name_;
  const JsonLimits& limits_;
  std::vector<Container> open_;
};
}  // namespace

json parse_bounded_json(std::string_view text, const std::string& name, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw JsonFileError(name + ": larger than " + std::to_string(limits.max_bytes) +
                        " bytes (the limit for this file)");
  LimitChecker checker(text, name, limits);
  json::sax_parse(text, &checker);
  // Within the limits and valid: the DOM parse now costs what the size allows.
  return json::parse(text);
}

std::string read_bounded_text(const std::filesystem::path& file, const JsonLimits& limits) {
  try {
    return platform::read_regular_file(file, limits.max_bytes);
  } catch (const platform::NotRegularFile& e) {
    throw JsonFileError(e.what());
  } catch (const std::system_error& e) {
    throw JsonFileError(file.string() + ": cannot be opened for reading (" + e.code().message() +
                        ")");
  }
}

json read_bounded_json(const std::filesystem::path& file, const JsonLimits& limits) {
  return parse_bounded_json(read_bounded_text(file, limits), file.string(), limits);
}

}  // namespace lb
