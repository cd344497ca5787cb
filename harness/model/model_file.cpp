#include "harness/model/model_file.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/model/accounting.hpp"
#include "harness/util/data_paths.hpp"
#include "harness/util/json_fields.hpp"
#include "harness/util/json_limits.hpp"
#include "harness/util/sha256.hpp"

namespace lb {

namespace {

// A size: a positive integer a 32-bit index can hold (the libraries' limit).
std::int64_t positive(const JsonField& object, const char* key) {
  return object[key].integer<std::int64_t>(1, max_tensor_elements);
}
std::int64_t positive(const JsonField& object, const char* key, std::int64_t fallback) {
  return object.has(key) ? positive(object, key) : fallback;
}
std::int64_t non_negative(const JsonField& object, const char* key, std::int64_t fallback) {
  return object.has(key) ? object[key].integer<std::int64_t>(0, max_tensor_elements) : fallback;
}
bool flag(const JsonField& object, const char* key, bool fallback) {
  return object.has(key) ? object[key].boolean() : fallback;
}

// The `algorithm` of an op of `kind`: one of the table's algorithms for it.
std::string algorithm(const JsonField& object, OpKind kind) {
  const JsonField field = object["algorithm"];
  const auto value = field.text();
  const auto choices = row(kind).algorithms;
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  std::string known;
  for (auto c : choices) known += (known.empty() ? "" : ", ") + std::string(c);
  field.expected("one of " + known);
}

// Names used on the command line and in result keys: no spaces or punctuation surprises.
std::string identifier(const JsonField& field) {
  auto value = field.text();
  const bool ok = std::all_of(value.begin(), value.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '.';
  });
  if (!ok) field.expected("a name of letters, digits, '_', '-' and '.'");
  return value;
}

// Reads a conv op's shape at batch 1 and checks that it describes a computable convolution.
ConvShape read_conv(const JsonField& f) {
  ConvShape s;
  s.n = 1;
  s.c = positive(f, "c"), s.h = positive(f, "h"), s.w = positive(f, "w");
  s.k = positive(f, "k"), s.r = positive(f, "r"), s.s = positive(f, "s");
  s.stride_h = positive(f, "stride_h"), s.stride_w = positive(f, "stride_w");
  s.pad_h = non_negative(f, "pad_h", 0), s.pad_w = non_negative(f, "pad_w", 0);
  s.dil_h = positive(f, "dil_h", 1), s.dil_w = positive(f, "dil_w", 1);
  s.groups = positive(f, "groups", 1);
  for (const auto& [field, channels] : {std::pair{"c", s.c}, std::pair{"k", s.k}})
    if (channels % s.groups != 0)
      f["groups"].fail(std::string(field) + " (" + std::to_string(channels) +
                       ") is not divisible by groups (" + std::to_string(s.groups) + ")");
  for (const bool height : {true, false}) {
    if ((height ? s.p() : s.q()) > 0) continue;
    const auto in = height ? s.h : s.w, pad = height ? s.pad_h : s.pad_w;
    const auto window = height ? s.r : s.s, dil = height ? s.dil_h : s.dil_w;
    f.fail(std::string("output ") + (height ? "height" : "width") +
           " is not positive: the window (" + (height ? "r " : "s ") + std::to_string(window) +
           ", dilation " + std::to_string(dil) + ", spanning " +
           std::to_string(dil * (window - 1) + 1) + ") is larger than the padded input (" +
           (height ? "h " : "w ") + std::to_string(in) + " + 2 x " +
           (height ? "pad_h " : "pad_w ") + std::to_string(pad) + ")");
  }
  return s;
}

// The largest per-image rank of a memory-bound op's tensor (C H W, or heads x tokens x tokens).
constexpr std::size_t max_memory_dims = 3;

// A memory-bound op's tensor at batch 1 and what its kind adds (algorithm, window).
MemoryShape read_memory(const JsonField& f, OpKind kind) {
  MemoryShape s;
  const JsonField dims = f["dims"];
  const auto rank =
      dims.array("an array of 1 to " + std::to_string(max_memory_dims) + " positive integers", 1,
                 max_memory_dims);
  s.dims = {1};
  for (std::size_t i = 0; i < rank; ++i)
    s.dims.push_back(dims[i].integer<std::int64_t>(1, max_tensor_elements));
  const auto need_chw = [&] {
    if (s.dims.size() != 4) dims.expected("[channels, height, width]");
  };
  switch (kind) {
    case OpKind::batch_norm:
      s.op = MemoryOp::batch_norm, need_chw();
      break;
    case OpKind::layer_norm:
      s.op = MemoryOp::layer_norm;
      break;
    case OpKind::softmax:
      s.op = MemoryOp::softmax;
      break;
    case OpKind::eltwise:
      s.op = algorithm(f, kind) == "relu" ? MemoryOp::relu : MemoryOp::gelu_erf;
      s.in_place = flag(f, "in_place", false);
      // Run after run in place, GELU would take a negative value on to denormals (halving it
      // each time), which slow the CPU; no model here runs it in place.
      if (s.in_place && s.op == MemoryOp::gelu_erf)
        f["in_place"].fail("only relu runs in place (gelu_erf does not)");
      break;
    case OpKind::binary:
      algorithm(f, kind);
      s.op = MemoryOp::add;
      s.broadcast = flag(f, "broadcast", false);
      s.in_place = flag(f, "in_place", false);
      break;
    case OpKind::pool:
      s.op = algorithm(f, kind) == "max" ? MemoryOp::max_pool : MemoryOp::avg_pool;
      need_chw();
      s.window = positive(f, "window"), s.stride = positive(f, "stride");
      s.pad = non_negative(f, "pad", 0);
      // oneDNN and cuDNN refuse windows made of padding alone.
      if (s.pad >= s.window) f["pad"].fail("must be smaller than window");
      for (const std::size_t axis : {2, 3})
        if (s.pooled(s.dims[axis]) <= 0)
          f["window"].fail("larger than the padded input (" + std::to_string(s.dims[axis]) +
                           " + 2 x pad " + std::to_string(s.pad) + ")");
      break;
    default:
      throw std::logic_error("read_memory: not a memory-bound kind");
  }
  return s;
}

// The fields an op of `kind` may have (bench/op_kinds.json); any other is refused.
std::vector<std::string_view> fields_of(OpKind kind) {
  std::vector<std::string_view> fields(op_common_fields.begin(), op_common_fields.end());
  fields.insert(fields.end(), row(kind).fields.begin(), row(kind).fields.end());
  return fields;
}

Op read_op(const JsonField& f, const Model& model) {
  f.require_object();
  Op op;
  op.id = identifier(f["id"]);
  op.kind = read_op_kind(f["kind"]);
  f.allow_only(fields_of(op.kind));

  const JsonField layers = f["layers"];
  const auto count = layers.array("a non-empty array of strings", 1);
  for (std::size_t i = 0; i < count; ++i) op.layers.push_back(layers[i].text());
  op.input_layer = flag(f, "input_layer", false);
  op.after_conv = flag(f, "after_conv", false);
  if (const auto note = f.optional("note")) op.note = note->text();
  if (is_memory_bound(op.kind)) op.memory = read_memory(f, op.kind);

  switch (op.kind) {
    case OpKind::conv:
      op.conv = read_conv(f);
      if (op.input_layer) {
        // The input layer reads the image itself, so its input must be the model's input.
        const auto match = [&](const char* field, std::int64_t value, const char* input_field,
                               std::int64_t expected) {
          if (value != expected)
            f[field].fail("the input layer must read the model's input: expected input." +
                          std::string(input_field) + " (" + std::to_string(expected) + "), got " +
                          std::to_string(value));
        };
        match("c", op.conv.c, "channels", model.input_channels);
        match("h", op.conv.h, "height", model.input_height);
        match("w", op.conv.w, "width", model.input_width);
      }
      break;
    case OpKind::linear:
      op.tokens = positive(f, "tokens");
      op.gemm.k = positive(f, "in_features");
      op.gemm.n = positive(f, "out_features");
      op.gemm.m = op.tokens;
      op.gemm.trans_b = true;  // PyTorch stores the weight [out][in]: y = x . W^T
      break;
    case OpKind::bmm:
      op.heads = positive(f, "heads");
      op.gemm.m = positive(f, "m"), op.gemm.n = positive(f, "n"), op.gemm.k = positive(f, "k");
      op.gemm.trans_b = flag(f, "trans_b", false);
      op.gemm.batch = op.heads;
      break;
    default:
      break;  // memory-bound: read above
  }
  if (auto overflow = indexing_overflow(op, 1)) f.fail(*overflow);
  return op;
}

// The model-file limits of SCHEMA.md ("Limits"): the schema's deepest value is an op's layer
// name, four containers down (top object, ops, the op, its layers).
constexpr JsonLimits model_file_limits{max_model_file_bytes, 4};

Model model_from_json(const nlohmann::json& root, const std::string& file) {
  const JsonField top(root, file);
  top.require_object("a JSON object (a model)");

  Model model;
  model.file = file;
  if (const JsonField schema = top["schema"]; schema.text() != model_schema)
    schema.expected("\"" + std::string(model_schema) + "\"");
  top.allow_only({"schema", "name", "title", "source", "input", "notes", "ops"});
  model.name = identifier(top["name"]);
  model.title = top["title"].text();
  model.source = top["source"].text();

  const JsonField input = top["input"];
  input.require_object("an object with channels, height and width");
  input.allow_only({"channels", "height", "width"});
  model.input_channels = positive(input, "channels");
  model.input_height = positive(input, "height");
  model.input_width = positive(input, "width");
  if (const auto notes = top.optional("notes")) model.notes = notes->text();

  const JsonField ops = top["ops"];
  const auto count = ops.array("a non-empty array of operations", 1);
  if (count > max_model_ops)
    ops.fail(std::to_string(count) + " operations, more than the limit of " +
             std::to_string(max_model_ops));
  std::map<std::string, std::size_t> id_at, layer_at;
  for (std::size_t i = 0; i < count; ++i) {
    const JsonField op_field = ops[i];
    Op op = read_op(op_field, model);
    if (auto [it, fresh] = id_at.emplace(op.id, i); !fresh)
      op_field["id"].fail("duplicate id \"" + op.id + "\" (also ops[" + std::to_string(it->second) +
                          "])");
    for (std::size_t l = 0; l < op.layers.size(); ++l)
      if (auto [it, fresh] = layer_at.emplace(op.layers[l], i); !fresh)
        op_field["layers"][l].fail("layer \"" + op.layers[l] + "\" is already listed in ops[" +
                                   std::to_string(it->second) + "]");
    model.ops.push_back(std::move(op));
  }
  return model;
}

// The model in `text`, with the hash of the bytes it was read from.
Model model_of_text(std::string_view text, const std::string& file) {
  Model model = model_from_json(parse_bounded_json(text, file, model_file_limits), file);
  model.file_sha256 = sha256_hex(text);
  return model;
}

// The loaders' one error type: what bounded parsing and the field reader refuse, as a
// ModelFileError.
template <class Read>
Model load(Read&& read) {
  try {
    return read();
  } catch (const JsonFileError& e) {
    throw ModelFileError(e.what());
  } catch (const FieldError& e) {
    throw ModelFileError(e.what());
  }
}
}  // namespace

Model load_model_file(const std::filesystem::path& file) {
  return load(
      [&] { return model_of_text(read_bounded_text(file, model_file_limits), file.string()); });
}

Model load_model_text(std::string_view text, const std::string& file) {
  return load([&] { return model_of_text(text, file); });
}

std::vector<Model> load_models(const std::vector<std::filesystem::path>& files) {
  std::vector<Model> models;
  for (const auto& file : files) {
    Model model = load_model_file(file);
    if (const Model* earlier = find_model(models, model.name))
      throw ModelFileError(model.file + ": name: model \"" + model.name +
                           "\" is already defined in " + earlier->file);
    models.push_back(std::move(model));
  }
  return models;
}

std::vector<std::filesystem::path> builtin_model_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir() / "models"))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Model> load_builtin_models() { return load_models(builtin_model_files()); }

}  // namespace lb
