#pragma once
// The model-file parser: models as data files (bench/models/*.json, schema in
// bench/models/SCHEMA.md), each field checked, each error naming the file and the field.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/ops.hpp"
#include "harness/util/input_error.hpp"

namespace lb {

inline constexpr const char* model_schema = "layerbench-model/1";

// Thrown for a bad model file; what() is "<file>: ops[3].stride_h: must be a positive integer,
// is 0" (harness/util/json_fields.hpp has the wording).
struct ModelFileError : InputError {
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

}  // namespace lb
