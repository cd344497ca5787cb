#include "kernels/onednn/onednn_memory_bound_ops.hpp"

#include <stdexcept>
#include <type_traits>

namespace lb::onednn {

namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;
using Prop = dnnl::prop_kind;

// Row-major strides: the canonical layout of harness/problem.hpp. oneDNN runs these primitives
// on the layout it is given (no "any"), so they run on the frameworks' default plain layout.
memory::desc plain(const std::vector<std::int64_t>& dims, DataType type) {
  memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return memory::desc(memory::dims(dims.begin(), dims.end()), type, strides);
}

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
  memory::desc data(DataType t) const { return plain(problem.shape.dims, t); }
};

// Batch and layer normalisation (oneDNN's two primitives take the same arguments): inference
// forward, or training backward (dx, and the scale and shift gradients) after a training
// forward that computes the batch's statistics.
template <typename Forward, typename Backward>
void normalisation(Builder& b, const memory::desc& vector_f32, float epsilon, Flags inference,
                   const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto x = b.data(b.type), x_f32 = b.data(DataType::f32);
  const Flags affine = Flags::use_scale | Flags::use_shift;
  if (b.problem.pass == Pass::fwd) {
    b.op.pd = typename Forward::primitive_desc(b.engine, Prop::forward_inference, x, x, epsilon,
                                               affine | inference, attr, allow_empty);
    b.input(DNNL_ARG_SRC, x_f32);
    if (inference == Flags::use_global_stats)
      b.input(DNNL_ARG_MEAN, vector_f32), b.input(DNNL_ARG_VARIANCE, vector_f32);
    b.input(DNNL_ARG_SCALE, vector_f32), b.input(DNNL_ARG_SHIFT, vector_f32);
    b.output(DNNL_ARG_DST, x_f32);
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
  const auto x = b.data(b.type), x_f32 = b.data(DataType::f32);
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
  b.op.pd = dnnl::binary::primitive_desc(b.engine, dnnl::algorithm::binary_add, b.data(b.type),
                                         plain(second, b.type), b.data(b.type), attr, allow_empty);
  b.input(DNNL_ARG_SRC_0, b.data(DataType::f32));
  b.input(DNNL_ARG_SRC_1, plain(second, DataType::f32));
  b.output(DNNL_ARG_DST, b.data(DataType::f32));
}

void pool(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto& s = b.problem.shape;
  const bool max = s.op == MemoryOp::max_pool;
  const auto algorithm =
      max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
  const std::vector<std::int64_t> y_dims{s.dims[0], s.dims[1], s.pooled(s.dims[2]),
                                         s.pooled(s.dims[3])};
  const auto x = b.data(b.type), y = plain(y_dims, b.type);
  const memory::dims kernel{s.window, s.window}, strides{s.stride, s.stride}, dilation{0, 0},
      padding{s.pad, s.pad};
  const auto forward = [&](Prop prop) {
    return dnnl::pooling_forward::primitive_desc(b.engine, prop, algorithm, x, y, strides, kernel,
                                                 dilation, padding, padding, attr, allow_empty);
  };
  if (b.problem.pass == Pass::fwd) {
    b.op.pd = forward(Prop::forward_inference);
    b.input(DNNL_ARG_SRC, b.data(DataType::f32));
    b.output(DNNL_ARG_DST, plain(y_dims, DataType::f32));
    return;
  }
  const auto hint = forward(Prop::forward_training);
  if (!hint) return;
  b.op.pd =
      dnnl::pooling_backward::primitive_desc(b.engine, algorithm, x, y, strides, kernel, dilation,
                                             padding, padding, hint, attr, allow_empty);
  b.op.forward_hint = hint;
  if (max) {  // the backward reads the forward's argmax (its workspace), not x
    b.input(DNNL_ARG_SRC, b.data(DataType::f32));
    b.op.prologue = hint;
    b.op.prologue_args = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_WORKSPACE};
    b.op.other_args = {DNNL_ARG_WORKSPACE};
  }
  b.input(DNNL_ARG_DIFF_DST, plain(y_dims, DataType::f32));
  b.output(DNNL_ARG_DIFF_SRC, b.data(DataType::f32));
}

void softmax(Builder& b, const dnnl::primitive_attr& attr, bool allow_empty) {
  const auto x = b.data(b.type), x_f32 = b.data(DataType::f32);
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
  const auto attr = make_attr();
  switch (problem.shape.op) {
    case MemoryOp::batch_norm:  // per channel; running statistics in inference
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
