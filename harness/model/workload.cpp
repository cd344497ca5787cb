#include "harness/model/workload.hpp"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/data_paths.hpp"
#include "harness/json_limits.hpp"

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

std::string_view name(PassSet s) { return s == PassSet::fwd ? "fwd" : "train"; }

std::optional<PassSet> parse_pass_set(std::string_view text) {
  for (PassSet s : {PassSet::fwd, PassSet::train})
    if (name(s) == text) return s;
  return std::nullopt;
}

namespace {
using nlohmann::json;

// Reads the fields of one JSON object of a model file. Every error names the file, the
// object ("ops[3]", "input" or the top level) and the field, and every field read is noted
// so that anything else can be rejected as unknown.
class FieldReader {
 public:
  FieldReader(const json& object, const std::string& file, std::string where)
      : object_(object), file_(file), where_(std::move(where)) {}

  [[noreturn]] void fail(std::string_view field, const std::string& message) const {
    std::string path = where_;
    if (!field.empty()) path += (path.empty() ? "" : ".") + std::string(field);
    throw WorkloadError(file_ + ": " + (path.empty() ? "" : path + ": ") + message);
  }

  void allow_only(const std::vector<std::string_view>& fields) const {
    for (const auto& item : object_.items())
      if (std::find(fields.begin(), fields.end(), item.key()) == fields.end())
        fail(item.key(), "unknown field");
  }

  bool has(const char* field) const { return object_.contains(field); }

  const json& required(const char* field) const {
    if (!has(field)) fail(field, "missing (required)");
    return object_.at(field);
  }

  std::int64_t positive(const char* field) const { return integer(field, required(field), 1); }
  std::int64_t positive(const char* field, std::int64_t fallback) const {
    return has(field) ? positive(field) : fallback;
  }
  std::int64_t non_negative(const char* field, std::int64_t fallback) const {
    return has(field) ? integer(field, object_.at(field), 0) : fallback;
  }

  // A non-empty array of at most `max_size` positive integers.
  std::vector<std::int64_t> positive_list(const char* field, std::size_t max_size) const {
    const auto& v = required(field);
    const std::string expected =
        "must be an array of 1 to " + std::to_string(max_size) + " positive integers";
    if (!v.is_array() || v.empty() || v.size() > max_size) fail(field, expected);
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < v.size(); ++i)
      values.push_back(
          integer((std::string(field) + "[" + std::to_string(i) + "]").c_str(), v[i], 1));
    return values;
  }

  // One of `choices`.
  std::string choice(const char* field, std::initializer_list<std::string_view> choices) const {
    const auto value = text(field);
    if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
    std::string known;
    for (auto c : choices) known += (known.empty() ? "" : ", ") + std::string(c);
    fail(field, "unknown value \"" + value + "\" (expected " + known + ")");
  }

  bool flag(const char* field, bool fallback) const {
    if (!has(field)) return fallback;
    const auto& v = object_.at(field);
    if (!v.is_boolean()) fail(field, "must be true or false");
    return v.get<bool>();
  }

  std::string text(const char* field) const {
    const auto& v = required(field);
    if (!v.is_string() || v.get<std::string>().empty()) fail(field, "must be a non-empty string");
    return v.get<std::string>();
  }
  std::string text(const char* field, const std::string& fallback) const {
    return has(field) ? text(field) : fallback;
  }

  // Names used on the command line and in result keys: no spaces or punctuation surprises.
  std::string identifier(const char* field) const {
    auto value = text(field);
    const bool ok = std::all_of(value.begin(), value.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '-' || ch == '.';
    });
    if (!ok) fail(field, "must use only letters, digits, '_', '-' and '.'");
    return value;
  }

 private:
  std::int64_t integer(const char* field, const json& v, std::int64_t minimum) const {
    const std::string expected =
        minimum > 0 ? "must be a positive integer" : "must be a non-negative integer";
    if (!v.is_number_integer()) fail(field, expected);
    // Unsigned storage holds values beyond INT64_MAX: bound it before converting.
    const bool too_large = v.is_number_unsigned()
                               ? v.get<std::uint64_t>() > std::uint64_t{max_tensor_elements}
                               : v.get<std::int64_t>() > max_tensor_elements;
    if (too_large) fail(field, "must be at most " + std::to_string(max_tensor_elements));
    const auto value = v.get<std::int64_t>();
    if (value < minimum) fail(field, expected);
    return value;
  }

  const json& object_;
  const std::string& file_;
  std::string where_;
};

// Reads a conv op's shape at batch 1 and checks that it describes a computable convolution.
ConvShape read_conv(const FieldReader& f) {
  ConvShape s;
  s.n = 1;
  s.c = f.positive("c"), s.h = f.positive("h"), s.w = f.positive("w");
  s.k = f.positive("k"), s.r = f.positive("r"), s.s = f.positive("s");
  s.stride_h = f.positive("stride_h"), s.stride_w = f.positive("stride_w");
  s.pad_h = f.non_negative("pad_h", 0), s.pad_w = f.non_negative("pad_w", 0);
  s.dil_h = f.positive("dil_h", 1), s.dil_w = f.positive("dil_w", 1);
  s.groups = f.positive("groups", 1);
  for (const auto& [field, channels] : {std::pair{"c", s.c}, std::pair{"k", s.k}})
    if (channels % s.groups != 0)
      f.fail("groups", std::string(field) + " (" + std::to_string(channels) +
                           ") is not divisible by groups (" + std::to_string(s.groups) + ")");
  for (const bool height : {true, false}) {
    if ((height ? s.p() : s.q()) > 0) continue;
    const auto in = height ? s.h : s.w, pad = height ? s.pad_h : s.pad_w;
    const auto window = height ? s.r : s.s, dil = height ? s.dil_h : s.dil_w;
    f.fail("", std::string("output ") + (height ? "height" : "width") +
                   " is not positive: the window (" + (height ? "r " : "s ") +
                   std::to_string(window) + ", dilation " + std::to_string(dil) + ", spanning " +
                   std::to_string(dil * (window - 1) + 1) + ") is larger than the padded input (" +
                   (height ? "h " : "w ") + std::to_string(in) + " + 2 x " +
                   (height ? "pad_h " : "pad_w ") + std::to_string(pad) + ")");
  }
  return s;
}

// The largest per-image rank of a memory-bound op's tensor (C H W, or heads x tokens x tokens).
constexpr std::size_t max_memory_dims = 3;

// A memory-bound op's tensor at batch 1 and what its kind adds (algorithm, window).
MemoryShape read_memory(const FieldReader& f, OpKind kind) {
  MemoryShape s;
  s.dims = f.positive_list("dims", max_memory_dims);
  s.dims.insert(s.dims.begin(), 1);
  const auto need_chw = [&] {
    if (s.dims.size() != 4) f.fail("dims", "must be [channels, height, width]");
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
      s.op = f.choice("algorithm", {"relu", "gelu_erf"}) == "relu" ? MemoryOp::relu
                                                                   : MemoryOp::gelu_erf;
      break;
    case OpKind::binary:
      f.choice("algorithm", {"add"});
      s.op = MemoryOp::add;
      s.broadcast = f.flag("broadcast", false);
      break;
    case OpKind::pool:
      s.op =
          f.choice("algorithm", {"max", "avg"}) == "max" ? MemoryOp::max_pool : MemoryOp::avg_pool;
      need_chw();
      s.window = f.positive("window"), s.stride = f.positive("stride");
      s.pad = f.non_negative("pad", 0);
      // oneDNN and cuDNN refuse windows made of padding alone.
      if (s.pad >= s.window) f.fail("pad", "must be smaller than window");
      for (const std::size_t axis : {2, 3})
        if (s.pooled(s.dims[axis]) <= 0)
          f.fail("window", "larger than the padded input (" + std::to_string(s.dims[axis]) +
                               " + 2 x pad " + std::to_string(s.pad) + ")");
      break;
    default:
      throw std::logic_error("read_memory: not a memory-bound kind");
  }
  return s;
}

// The fields an op of each kind may have (bench/models/SCHEMA.md); any other is refused.
std::vector<std::string_view> fields_of(OpKind kind) {
  std::vector<std::string_view> fields = {"id", "kind", "layers", "note"};
  const auto add = [&](std::initializer_list<std::string_view> more) {
    fields.insert(fields.end(), more);
  };
  switch (kind) {
    case OpKind::conv:
      add({"input_layer", "c", "h", "w", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
           "dil_h", "dil_w", "groups"});
      break;
    case OpKind::linear:
      add({"input_layer", "tokens", "in_features", "out_features"});
      break;
    case OpKind::bmm:
      add({"input_layer", "heads", "m", "n", "k", "trans_b"});
      break;
    case OpKind::batch_norm:
      add({"dims", "after_conv"});
      break;
    case OpKind::layer_norm:
    case OpKind::softmax:
      add({"dims"});
      break;
    case OpKind::eltwise:
      add({"dims", "algorithm"});
      break;
    case OpKind::binary:
      add({"dims", "algorithm", "broadcast"});
      break;
    case OpKind::pool:
      add({"dims", "algorithm", "window", "stride", "pad"});
      break;
  }
  return fields;
}

Op read_op(const json& j, const std::string& file, std::size_t index, const Model& model) {
  const FieldReader f(j, file, "ops[" + std::to_string(index) + "]");
  if (!j.is_object()) f.fail("", "must be an object");
  Op op;
  op.id = f.identifier("id");
  const auto kind_text = f.text("kind");
  const auto kind = parse_op_kind(kind_text);
  if (!kind)
    f.fail("kind", "unknown kind \"" + kind_text +
                       "\" (expected conv, linear, bmm, batch_norm, layer_norm, eltwise, binary, "
                       "pool or softmax)");
  op.kind = *kind;
  f.allow_only(fields_of(op.kind));

  const auto& layers = f.required("layers");
  if (!layers.is_array() || layers.empty())
    f.fail("layers", "must be a non-empty array of strings");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i].is_string() || layers[i].get<std::string>().empty())
      f.fail("layers[" + std::to_string(i) + "]", "must be a non-empty string");
    op.layers.push_back(layers[i].get<std::string>());
  }
  op.input_layer = f.flag("input_layer", false);
  op.after_conv = f.flag("after_conv", false);
  op.note = f.text("note", "");
  if (is_memory_bound(op.kind)) op.memory = read_memory(f, op.kind);

  switch (op.kind) {
    case OpKind::conv:
      op.conv = read_conv(f);
      if (op.input_layer) {
        // The input layer reads the image itself, so its input must be the model's input.
        const auto match = [&](const char* field, std::int64_t value, const char* input_field,
                               std::int64_t expected) {
          if (value != expected)
            f.fail(field, "the input layer must read the model's input: expected input." +
                              std::string(input_field) + " (" + std::to_string(expected) +
                              "), got " + std::to_string(value));
        };
        match("c", op.conv.c, "channels", model.input_channels);
        match("h", op.conv.h, "height", model.input_height);
        match("w", op.conv.w, "width", model.input_width);
      }
      break;
    case OpKind::linear:
      op.tokens = f.positive("tokens");
      op.gemm.k = f.positive("in_features");
      op.gemm.n = f.positive("out_features");
      op.gemm.m = op.tokens;
      op.gemm.trans_b = true;  // PyTorch stores the weight [out][in]: y = x . W^T
      break;
    case OpKind::bmm:
      op.heads = f.positive("heads");
      op.gemm.m = f.positive("m"), op.gemm.n = f.positive("n"), op.gemm.k = f.positive("k");
      op.gemm.trans_b = f.flag("trans_b", false);
      op.gemm.batch = op.heads;
      break;
    default:
      break;  // memory-bound: read above
  }
  if (auto overflow = indexing_overflow(op, 1)) f.fail("", *overflow);
  return op;
}

std::string join_dims(const std::vector<std::int64_t>& dims) {
  std::string out;
  for (auto d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d);
  return out;
}
}  // namespace

namespace {
// The model-file limits of SCHEMA.md ("Limits"): the schema's deepest value is an op's layer
// name, four containers down (top object, ops, the op, its layers).
constexpr JsonLimits model_file_limits{max_model_file_bytes, 4};

Model model_from_json(const json& root, const std::string& file) {
  const FieldReader top(root, file, "");
  if (!root.is_object()) top.fail("", "must hold a JSON object (a model)");

  Model model;
  model.file = file;
  if (const auto schema = top.text("schema"); schema != model_schema)
    top.fail("schema", "unsupported schema \"" + schema + "\" (expected \"" + model_schema + "\")");
  top.allow_only({"schema", "name", "title", "source", "input", "notes", "ops"});
  model.name = top.identifier("name");
  model.title = top.text("title");
  model.source = top.text("source");

  const auto& input = top.required("input");
  const FieldReader in(input, file, "input");
  if (!input.is_object()) in.fail("", "must be an object with channels, height and width");
  in.allow_only({"channels", "height", "width"});
  model.input_channels = in.positive("channels");
  model.input_height = in.positive("height");
  model.input_width = in.positive("width");
  model.notes = top.text("notes", "");

  const auto& ops = top.required("ops");
  if (!ops.is_array() || ops.empty()) top.fail("ops", "must be a non-empty array of operations");
  if (ops.size() > max_model_ops)
    top.fail("ops", std::to_string(ops.size()) + " operations, more than the limit of " +
                        std::to_string(max_model_ops));
  std::map<std::string, std::size_t> id_at, layer_at;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Op op = read_op(ops[i], file, i, model);
    const std::string where = "ops[" + std::to_string(i) + "]";
    if (auto [it, fresh] = id_at.emplace(op.id, i); !fresh)
      throw WorkloadError(file + ": " + where + ".id: duplicate id \"" + op.id + "\" (also ops[" +
                          std::to_string(it->second) + "])");
    for (std::size_t l = 0; l < op.layers.size(); ++l)
      if (auto [it, fresh] = layer_at.emplace(op.layers[l], i); !fresh)
        throw WorkloadError(file + ": " + where + ".layers[" + std::to_string(l) + "]: layer \"" +
                            op.layers[l] + "\" is already listed in ops[" +
                            std::to_string(it->second) + "]");
    model.ops.push_back(std::move(op));
  }
  return model;
}
}  // namespace

Model load_model_file(const std::filesystem::path& file) {
  try {
    return model_from_json(read_bounded_json(file, model_file_limits), file.string());
  } catch (const JsonFileError& e) {
    throw WorkloadError(e.what());
  }
}

Model load_model_text(std::string_view text, const std::string& file) {
  try {
    return model_from_json(parse_bounded_json(text, file, model_file_limits), file);
  } catch (const JsonFileError& e) {
    throw WorkloadError(e.what());
  }
}

std::vector<Model> load_models(const std::vector<std::filesystem::path>& files) {
  std::vector<Model> models;
  for (const auto& file : files) {
    Model model = load_model_file(file);
    if (const Model* earlier = find_model(models, model.name))
      throw WorkloadError(model.file + ": name: model \"" + model.name +
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

const Model* find_model(const std::vector<Model>& models, std::string_view name) {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<std::string> indexing_overflow(const Op& op, int batch) {
  // The forward problem's tensors are the ones every training pass reads or writes.
  const auto dims = tensor_dims(problem_for(op, batch, Pass::fwd, Precision::fp32));
  std::vector<std::pair<std::string, const std::vector<std::int64_t>*>> tensors;
  if (op.kind == OpKind::conv) {
    tensors = {{"x", &dims.inputs[0]}, {"w", &dims.inputs[1]}, {"y", &dims.output}};
  } else if (!is_memory_bound(op.kind)) {
    tensors = {{"A", &dims.inputs[0]}, {"B", &dims.inputs[1]}, {"C", &dims.output}};
  } else {
    for (std::size_t i = 0; i < dims.inputs.size(); ++i)
      tensors.emplace_back("input " + std::to_string(i), &dims.inputs[i]);
    tensors.emplace_back("output", &dims.output);
  }
  for (const auto& [tensor, shape] : tensors) {
    // In double: the product of several 32-bit dimensions may not fit 64 bits.
    double elements = 1;
    for (auto d : *shape) elements *= static_cast<double>(d);
    if (elements > static_cast<double>(max_tensor_elements)) {
      std::ostringstream o;
      o.precision(0);
      o << std::fixed << "tensor " << tensor << " (" << join_dims(*shape) << ") holds " << elements
        << " elements at batch " << batch << ", more than 32-bit indexing allows ("
        << max_tensor_elements << ")";
      return o.str();
    }
  }
  return std::nullopt;
}

Problem problem_for(const Op& op, int batch, Pass pass, Precision precision) {
  if (batch < 1)
    throw std::invalid_argument("batch must be positive, got " + std::to_string(batch));
  Problem problem;
  problem.precision = precision;
  GemmShape g = op.gemm;
  switch (op.kind) {
    case OpKind::conv: {
      ConvShape s = op.conv;
      s.n = batch;
      problem.op = ConvProblem{s, pass};
      return problem;
    }
    case OpKind::linear:
      g.m = op.tokens * batch;
      break;
    case OpKind::bmm:
      g.batch = op.heads * batch;
      break;
    default: {
      MemoryShape s = op.memory;
      s.dims.at(0) = batch;
      problem.op = MemoryProblem{s, pass};
      return problem;
    }
  }
  problem.op = GemmProblem{gemm_for_pass(g, pass)};
  return problem;
}

std::vector<Pass> passes_for(const Op& op, PassSet set) {
  if (set == PassSet::fwd) return {Pass::fwd};
  if (is_memory_bound(op.kind)) {
    if (op.memory.broadcast) return {Pass::fwd};
    return {Pass::fwd, Pass::bwd_data};
  }
  if (op.input_layer) return {Pass::fwd, Pass::bwd_weights};
  return {Pass::fwd, Pass::bwd_data, Pass::bwd_weights};
}

std::uint64_t memory_bytes(const Problem& problem) {
  // Every tensor the problem touches is resident at once: exactly the tensors min_bytes counts
  // (a whole number of bytes, exact in the double below 2^53). Beyond 2^64 the conversion
  // would be undefined; a checked problem never gets there (3 tensors of at most 2^31 - 1
  // elements of at most 4 bytes), an unchecked one is refused.
  const double bytes = min_bytes(problem);
  if (!(bytes < 18446744073709551616.0))  // 2^64
    throw std::overflow_error("a problem needing 2^64 bytes or more");
  return static_cast<std::uint64_t>(bytes);
}

ModelTotals totals(const Model& model, int batch, PassSet set) {
  ModelTotals t;
  for (const auto& op : model.ops) {
    for (Pass pass : passes_for(op, set))
      t.flop += op.count() * flop_count(problem_for(op, batch, pass, Precision::fp32));
    t.layers += op.count();
  }
  t.ops = static_cast<int>(model.ops.size());
  t.flop_per_image = t.flop / batch;
  return t;
}

}  // namespace lb
