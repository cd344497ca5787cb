#include "kernels/onednn/onednn_memory_bound_ops.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <type_traits>

namespace lb::onednn {

namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;
using Prop = dnnl::prop_kind;

// Row-major strides: the canonical layout of harness/api/problem.hpp, and the layout of the
// tensors a model's GEMMs read and write (ViT's layer norm, softmax, GELU and adds).
memory::desc plain(const std::vector<std::int64_t>& dims, DataType type) {
  memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return memory::desc(memory::dims(dims.begin(), dims.end()), type, strides);
}

}  // namespace

memory::desc model_layout(MemoryOp op, const std::vector<std::int64_t>& dims, DataType type,
                          Pass pass, const dnnl::engine& engine) {
  // Softmax and layer norm read and write GEMMs' row-major tensors (attention scores, tokens).
  const bool image = dims.size() == 4 && op != MemoryOp::softmax && op != MemoryOp::layer_norm;
  if (!image) return plain(dims, type);
  // oneDNN's own choice ("any") for a 1x1 convolution keeping the channels, made as the
  // backend makes its convolution points of the same pass (inference's forward for fwd, a
  // training one otherwise): the layout its convolutions leave activations in.
  const memory::dims x(dims.begin(), dims.end()), w{dims[1], dims[1], 1, 1};
  const memory::desc x_any(x, type, memory::format_tag::any),
      w_any(w, type, memory::format_tag::any);
  const dnnl::convolution_forward::primitive_desc conv(
      engine, forward_prop(pass), dnnl::algorithm::convolution_auto, x_any, w_any, x_any, {1, 1},
      {0, 0}, {0, 0}, {0, 0}, make_attr(), true);
  return conv ? conv.dst_desc() : plain(dims, type);
}

std::string layout_name(const memory::desc& d) {
  const auto dims = d.get_dims();
  const auto strides = d.get_strides();
  const auto blocks = d.get_inner_blks();
  const auto block_dims = d.get_inner_idxs();
  if (d.get_format_kind() != memory::format_kind::blocked || strides.empty()) return "other";
  // The dimensions from outermost to innermost (by stride; ties keep the logical order).
  std::vector<std::size_t> order(dims.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
  const bool image = dims.size() == 4;
  const char* letters = image ? "nchw" : "abcdefghijkl";
  std::string name;
  for (std::size_t i : order) {
    const bool blocked = std::find(block_dims.begin(), block_dims.end(),
                                   static_cast<memory::dim>(i)) != block_dims.end();
    name += blocked ? static_cast<char>(std::toupper(letters[i])) : letters[i];
  }
  for (std::size_t b = 0; b < blocks.size(); ++b)
    name += std::to_string(blocks[b]) + letters[block_dims[b]];
  if (name == "abc" || name == "ab" || name == "a") return "row-major";
  return name;
}

namespace {

// The operation's arguments; the canonical host inputs are FP32, the device ones `type` for
// the data tensors and FP32 for the statistics and scale/shift vectors (oneDNN's only choice).
struct Builder {
  const MemoryProblem& problem;
  DataType type;
  const dnnl::engine& engine;
  Operation op;

  void input(int arg, const memory::desc& canonical) {
    op.input_args.push_back(arg);
    op.canonical_inputs.push_back(canonical);
  }
  void output(int arg, const memory::desc& canonical) {
    op.output_arg = arg;
    op.canonical_output = canonical;
  }
  // A data tensor where the operation runs: the model's layout (model_layout) at `type`.
  memory::desc data(const std::vector<std::int64_t>& dims) const {
    return model_layout(problem.shape.op, dims, type, problem.pass, engine);
  }
  memory::desc data() const { return data(problem.shape.dims); }
  // A data tensor as the host holds it: FP32, row-major.
  memory::desc canonical(const std::vector<std::int64_t>& dims) const {
    return plain(dims, DataType::f32);
  }
  memory::desc canonical() const { return canonical(problem.shape.dims); }
};

// Batch and layer normalisation (oneDNN's two primitives take the same arguments): inference
// forward; training forward (batch norm's fwd_training: the batch's statistics computed and
// written besides y); or training backward (dx, and the scale and shift gradients) after a
// training forward that computes the batch's statistics.
template <typename Forward, typename Backward>
void normalisation(Builder& b, const memory::desc& vector_f32, float epsilon, Flags inference,
                   const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto x = b.data(), x_f32 = b.canonical();
  const Flags affine = Flags::use_scale | Flags::use_shift;
  if (b.problem.pass != Pass::bwd_data) {
    const bool training = b.problem.pass == Pass::fwd_training;
    const Flags statistics = training ? Flags::none : inference;
    b.op.pd = typename Forward::primitive_desc(
        b.engine, training ? Prop::forward_training : Prop::forward_inference, x, x, epsilon,
        affine | statistics, attr, allow_empty);
    b.input(DNNL_ARG_SRC, x_f32);
    if (statistics == Flags::use_global_stats)
      b.input(DNNL_ARG_MEAN, vector_f32), b.input(DNNL_ARG_VARIANCE, vector_f32);
    b.input(DNNL_ARG_SCALE, vector_f32), b.input(DNNL_ARG_SHIFT, vector_f32);
    b.output(DNNL_ARG_DST, x_f32);
    if (training) b.op.other_args = {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
    return;
  }
  const typename Forward::primitive_desc hint(b.engine, Prop::forward_training, x, x, epsilon,
                                              affine, attr, allow_empty);
  if (!hint) return;
  b.op.pd = typename Backward::primitive_desc(b.engine, Prop::backward, x, x, x, epsilon, affine,
                                              hint, attr, allow_empty);
  b.op.forward_hint = b.op.prologue = hint;
  b.op.prologue_args = {DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT,
                        DNNL_ARG_DST, DNNL_ARG_MEAN,  DNNL_ARG_VARIANCE};
  b.input(DNNL_ARG_SRC, x_f32), b.input(DNNL_ARG_DIFF_DST, x_f32);
  b.input(DNNL_ARG_SCALE, vector_f32);
  b.output(DNNL_ARG_DIFF_SRC, x_f32);
  b.op.other_args = {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT};
  // oneDNN's layer-norm backward also takes the shift (unused by the gradient of x); its
  // batch-norm backward refuses it.
  if (std::is_same_v<Forward, dnnl::layer_normalization_forward>)
    b.op.other_args.push_back(DNNL_ARG_SHIFT);
}

void eltwise(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto algorithm = b.problem.shape.op == MemoryOp::relu ? dnnl::algorithm::eltwise_relu
                                                              : dnnl::algorithm::eltwise_gelu_erf;
  const auto x = b.data(), x_f32 = b.canonical();
  b.input(DNNL_ARG_SRC, x_f32);
  if (b.problem.pass == Pass::fwd) {
    b.op.pd = dnnl::eltwise_forward::primitive_desc(b.engine, Prop::forward_inference, algorithm, x,
                                                    x, 0.f, 0.f, attr, allow_empty);
    b.output(DNNL_ARG_DST, x_f32);
    return;
  }
  const dnnl::eltwise_forward::primitive_desc hint(b.engine, Prop::forward_training, algorithm, x,
                                                   x, 0.f, 0.f, attr, allow_empty);
  if (!hint) return;
  b.op.pd = dnnl::eltwise_backward::primitive_desc(b.engine, algorithm, x, x, x, 0.f, 0.f, hint,
                                                   attr, allow_empty);
  b.op.forward_hint = hint;
  b.input(DNNL_ARG_DIFF_DST, x_f32);
  b.output(DNNL_ARG_DIFF_SRC, x_f32);
}

// Forward and backward are the same add (the backward one is the gradients' accumulation).
void add(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  auto second = b.problem.shape.dims;
  if (b.problem.shape.broadcast) second.at(0) = 1;
  b.op.pd = dnnl::binary::primitive_desc(b.engine, dnnl::algorithm::binary_add, b.data(),
                                         b.data(second), b.data(), attr, allow_empty);
  b.input(DNNL_ARG_SRC_0, b.canonical());
  b.input(DNNL_ARG_SRC_1, b.canonical(second));
  b.output(DNNL_ARG_DST, b.canonical());
}

void pool(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto& s = b.problem.shape;
  const bool max = s.op == MemoryOp::max_pool;
  const auto algorithm =
      max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
  const std::vector<std::int64_t> y_dims{s.dims[0], s.dims[1], s.pooled(s.dims[2]),
                                         s.pooled(s.dims[3])};
  const auto x = b.data(), y = b.data(y_dims);
  const memory::dims kernel{s.window, s.window}, strides{s.stride, s.stride}, dilation{0, 0},
      padding{s.pad, s.pad};
  const auto forward = [&](Prop prop) {
    return dnnl::pooling_forward::primitive_desc(b.engine, prop, algorithm, x, y, strides, kernel,
                                                 dilation, padding, padding, attr, allow_empty);
  };
  if (b.problem.pass == Pass::fwd) {
    b.op.pd = forward(Prop::forward_inference);
    b.input(DNNL_ARG_SRC, b.canonical());
    b.output(DNNL_ARG_DST, b.canonical(y_dims));
    return;
  }
  const auto hint = forward(Prop::forward_training);
  if (!hint) return;
  b.op.pd =
      dnnl::pooling_backward::primitive_desc(b.engine, algorithm, x, y, strides, kernel, dilation,
                                             padding, padding, hint, attr, allow_empty);
  b.op.forward_hint = hint;
  if (max) {  // the backward reads the forward's argmax (its workspace), not x
    b.input(DNNL_ARG_SRC, b.canonical());
    b.op.prologue = hint;
    b.op.prologue_args = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_WORKSPACE};
    b.op.other_args = {DNNL_ARG_WORKSPACE};
  }
  b.input(DNNL_ARG_DIFF_DST, b.canonical(y_dims));
  b.output(DNNL_ARG_DIFF_SRC, b.canonical());
}

void softmax(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto x = b.data(), x_f32 = b.canonical();
  const int axis = static_cast<int>(b.problem.shape.dims.size()) - 1;
  const auto algorithm = dnnl::algorithm::softmax_accurate;
  b.input(DNNL_ARG_SRC, x_f32);
  if (b.problem.pass == Pass::fwd) {
    b.op.pd = dnnl::softmax_forward::primitive_desc(b.engine, Prop::forward_inference, algorithm, x,
                                                    x, axis, attr, allow_empty);
    b.output(DNNL_ARG_DST, x_f32);
    return;
  }
  const dnnl::softmax_forward::primitive_desc hint(b.engine, Prop::forward_training, algorithm, x,
                                                   x, axis, attr, allow_empty);
  if (!hint) return;
  // The backward reads the forward's output y, not x.
  b.op.pd = dnnl::softmax_backward::primitive_desc(b.engine, algorithm, x, x, x, axis, hint, attr,
                                                   allow_empty);
  b.op.forward_hint = b.op.prologue = hint;
  b.op.prologue_args = {DNNL_ARG_SRC, DNNL_ARG_DST};
  b.op.other_args = {DNNL_ARG_DST};
  b.input(DNNL_ARG_DIFF_DST, x_f32);
  b.output(DNNL_ARG_DIFF_SRC, x_f32);
}

}  // namespace

Operation make_memory_op(const MemoryProblem& problem, DataType type, const dnnl::engine& engine,
                         int impl, bool allow_empty) {
  Builder b{problem, type, engine, {}};
  b.op.algorithm = std::string(name(problem.shape.op));
  // oneDNN runs eltwise and binary in place where dst and src (src_0) share memory and layout,
  // as they do here.
  b.op.in_place = runs_in_place(problem);
  const auto attr = make_attr();
  switch (problem.shape.op) {
    case MemoryOp::batch_norm:  // per channel; running statistics in inference, the batch's in
                                // training
      normalisation<dnnl::batch_normalization_forward, dnnl::batch_normalization_backward>(
          b, plain({problem.shape.dims.at(1)}, DataType::f32),
          static_cast<float>(batch_norm_epsilon), Flags::use_global_stats, attr, allow_empty);
      break;
    case MemoryOp::layer_norm:  // per row over the last dimension, its own statistics always
      normalisation<dnnl::layer_normalization_forward, dnnl::layer_normalization_backward>(
          b, plain({problem.shape.dims.back()}, DataType::f32),
          static_cast<float>(layer_norm_epsilon), Flags::none, attr, allow_empty);
      break;
    case MemoryOp::relu:
    case MemoryOp::gelu_erf:
      eltwise(b, attr, allow_empty);
      break;
    case MemoryOp::add:
      add(b, attr, allow_empty);
      break;
    case MemoryOp::max_pool:
    case MemoryOp::avg_pool:
      pool(b, attr, allow_empty);
      break;
    case MemoryOp::softmax:
      softmax(b, attr, allow_empty);
      break;
  }
  // The data tensors carry the precision; statistics and scale/shift are FP32 in oneDNN.
  for (int arg : {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_DIFF_DST})
    for (int used : b.op.input_args)
      if (used == arg) b.op.typed_args.push_back(arg);
  b.op.typed_args.push_back(b.op.output_arg);
  select_impl(b.op.pd, impl);
  return b.op;
}

}  // namespace lb::onednn
