#pragma once
// Bounded parsing of JSON that comes from outside (model files, results files). The size is
// checked before the text is read, nesting depth, duplicate keys and numbers while a SAX pass
// reads it, and only a text that passes is built into a DOM: a hostile file costs time and
// memory in proportion to its size limit, never to its nesting.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/util/input_error.hpp"

namespace lb {

struct JsonLimits {
  std::size_t max_bytes = 0;
  int max_depth = 0;  // objects and arrays open at once; the root container is depth 1
};

// what(): "<name>: line 5: not valid JSON: <nlohmann's reason>", "<name>: ops[3]: duplicate key
// \"c\"", "<name>: line 2: ops[0].c: number 1e999 is out of range (beyond a double's)", ...
struct JsonFileError : InputError {
  using InputError::InputError;
};

// Parses `text`, whose errors name `name`. Throws JsonFileError.
nlohmann::json parse_bounded_json(std::string_view text, const std::string& name,
                                  const JsonLimits& limits);
// Reads at most limits.max_bytes + 1 bytes of `file` (a regular file), for parse_bounded_json;
// the caller keeps the text (a model file's content hash is of the bytes parsed). Throws
// JsonFileError.
std::string read_bounded_text(const std::filesystem::path& file, const JsonLimits& limits);
// read_bounded_text, then parse_bounded_json. Throws JsonFileError.
nlohmann::json read_bounded_json(const std::filesystem::path& file, const JsonLimits& limits);

}  // namespace lb
