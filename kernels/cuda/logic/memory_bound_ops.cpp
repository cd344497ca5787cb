#include "kernels/cuda/logic/memory_bound_ops.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/cuda/logic/device_rules.hpp"

namespace lb::cuda::logic {

namespace {

constexpr std::int64_t int_max = std::numeric_limits<int>::max();

std::int64_t product(std::vector<std::int64_t>::const_iterator first,
                     std::vector<std::int64_t>::const_iterator last) {
  return element_count(std::vector<std::int64_t>(first, last));
}

bool is_4d_op(MemoryOp op) {
  return op == MemoryOp::batch_norm || op == MemoryOp::max_pool || op == MemoryOp::avg_pool;
}

}  // namespace

MemoryRoute memory_route(MemoryOp op) {
  return op == MemoryOp::layer_norm || op == MemoryOp::gelu_erf || op == MemoryOp::relu ||
                 op == MemoryOp::add
             ? MemoryRoute::kernel
             : MemoryRoute::cudnn_legacy;
}

bool batch_norm_kernel_fits(std::int64_t channels) {
  return channels > 0 && channels <= batch_norm_kernel_most_channels;
}

MemoryRoute memory_route(const MemoryProblem& problem) {
  const auto& s = problem.shape;
  if (s.op == MemoryOp::batch_norm && problem.pass == Pass::fwd && s.dims.size() == 4 &&
      batch_norm_kernel_fits(s.dims[1]))
    return MemoryRoute::kernel;
  return memory_route(s.op);
}

bool cudnn_legacy_has(MemoryOp op) {
  return op != MemoryOp::layer_norm && op != MemoryOp::gelu_erf;
}

const char* name(MemoryRoute route) {
  return route == MemoryRoute::kernel ? "layerbench kernel" : "cuDNN legacy";
}

std::optional<std::string> memory_unsupported(const Problem& problem, int major, int minor) {
  const auto& m = problem.memory();
  const std::string op(name(m.shape.op));
  switch (problem.precision) {
    case Precision::tf32:
      return "TF32 is a Tensor Core mode for matrix products and " + op +
             " has none: the GPU backend runs it in fp32 only";
    case Precision::fp8:
      return "layerbench runs FP8 only through cuBLASLt (GEMMs); its GPU " + op +
             " takes FP32, FP16 or BF16 data";
    case Precision::bf16:
      if (major * 10 + minor < 80)
        return "BF16 " + op + " needs compute capability 8.0 or newer, the first with BF16 " +
               "arithmetic (this GPU has compute capability " + std::to_string(major) + "." +
               std::to_string(minor) + ")";
      break;
    case Precision::fp32:
    case Precision::fp16:
      break;
  }
  const auto dims = tensor_dims(problem);
  if (memory_route(m) == MemoryRoute::cudnn_legacy) {
    std::int64_t largest = element_count(dims.output);
    for (const auto& d : dims.inputs) largest = std::max(largest, element_count(d));
    if (largest > int_max)
      return "a tensor of " + std::to_string(largest) +
             " elements exceeds the int dimensions of cuDNN's legacy calls";
  } else if (m.shape.op == MemoryOp::layer_norm && row_count(m.shape) > int_max) {
    return "more rows than a kernel launches blocks (" + std::to_string(int_max) + ")";
  }
  return std::nullopt;
}

bool layout_applies(MemoryOp op) { return is_4d_op(op); }

TensorSpec memory_tensor_spec(const MemoryShape& shape, const std::vector<std::int64_t>& dims,
                              Layout layout) {
  TensorSpec spec;
  if (dims.empty()) throw std::invalid_argument("a tensor without dimensions");
  if (dims.size() == 1 && (shape.op == MemoryOp::batch_norm || shape.op == MemoryOp::layer_norm)) {
    spec.dims = {1, dims[0], 1, 1};
  } else if (is_4d_op(shape.op)) {
    if (dims.size() != 4)
      throw std::invalid_argument(std::string(name(shape.op)) + " takes N C H W tensors");
    spec.dims = {dims[0], dims[1], dims[2], dims[3]};
    spec.strides = packed_strides(spec.dims, layout);
    return spec;
  } else if (shape.op == MemoryOp::softmax) {
    spec.dims = {product(dims.begin(), dims.end() - 1), dims.back(), 1, 1};
  } else {
    spec.dims = {dims[0], product(dims.begin() + 1, dims.end()), 1, 1};
  }
  spec.strides = packed_strides(spec.dims, Layout::nchw);
  return spec;
}

ElementType memory_input_type(const MemoryProblem& problem, std::size_t input,
                              Precision precision) {
  const bool normalisation =
      problem.shape.op == MemoryOp::batch_norm || problem.shape.op == MemoryOp::layer_norm;
  // fwd and fwd_training {x, vectors...}; bwd {x, dy, gamma}
  const bool parameter =
      normalisation && (problem.pass != Pass::bwd_data ? input >= 1 : input == 2);
  return parameter ? ElementType::f32 : input_type(precision);
}

std::int64_t row_length(const MemoryShape& shape) { return shape.dims.at(shape.dims.size() - 1); }

std::int64_t row_count(const MemoryShape& shape) {
  return product(shape.dims.begin(), shape.dims.end() - 1);
}

std::uint64_t memory_extra_bytes(const Problem& problem) {
  const auto& m = problem.memory();
  if (m.pass == Pass::fwd) return 0;
  const auto data_bytes = static_cast<std::uint64_t>(element_bytes(input_type(problem.precision)));
  const auto& s = m.shape;
  switch (s.op) {
    case MemoryOp::softmax:
      return static_cast<std::uint64_t>(element_count(s.dims)) * data_bytes;
    case MemoryOp::max_pool:
      return static_cast<std::uint64_t>(element_count(tensor_dims(problem).inputs.at(1))) *
             data_bytes;
    case MemoryOp::batch_norm:  // training forward: the statistics; backward: also dgamma, dbeta
      return (m.pass == Pass::fwd_training ? 2 : 5) * static_cast<std::uint64_t>(s.dims.at(1)) *
             sizeof(float);
    case MemoryOp::layer_norm:
      return 2 * static_cast<std::uint64_t>(row_count(s) + row_length(s)) * sizeof(float);
    case MemoryOp::relu:  // the kernel's backward reads x (x > 0 exactly where y > 0), not y
    case MemoryOp::avg_pool:
    case MemoryOp::add:
    case MemoryOp::gelu_erf:
      return 0;
  }
  return 0;
}

KernelLaunch row_launch(std::int64_t rows, std::int64_t length) {
  constexpr std::int64_t warp = 32, most = 256;
  const std::int64_t threads = std::clamp((length + warp - 1) / warp * warp, warp, most);
  return {static_cast<unsigned>(std::clamp<std::int64_t>(rows, 0, int_max)),
          static_cast<unsigned>(threads)};
}

int vector_width(std::size_t element_bytes) {
  if (element_bytes == 0 || element_bytes > 16 || 16 % element_bytes != 0)
    throw std::invalid_argument("no 16-byte vector of " + std::to_string(element_bytes) +
                                "-byte elements");
  return static_cast<int>(16 / element_bytes);
}

VectorLaunch elementwise_launch(std::int64_t count, std::size_t element_bytes, int sm_count) {
  constexpr std::int64_t threads = 256, blocks_per_sm = 8;
  constexpr int per_thread = elementwise_vectors_per_thread;
  if (count <= 0) return {0, threads, per_thread};
  const std::int64_t vectors = count / vector_width(element_bytes),
                     per_block = threads * per_thread;
  const std::int64_t needed = std::max<std::int64_t>(1, (vectors + per_block - 1) / per_block);
  const std::int64_t most = std::max<std::int64_t>(1, sm_count) * blocks_per_sm;
  return {static_cast<unsigned>(std::min(needed, most)), static_cast<unsigned>(threads),
          per_thread};
}

RowPlan layer_norm_row_plan(std::int64_t length, std::size_t element_bytes) {
  constexpr std::int64_t warp = 32, small_block = 128, most = 1024;
  const int width = vector_width(element_bytes);
  const auto strided = [&] { return RowPlan{row_launch(1, length).threads, 0}; };
  if (length <= 0 || length % width != 0) return strided();
  const std::int64_t vectors = length / width;
  for (int per_thread : {1, 2, 4, 8}) {
    const std::int64_t threads = (vectors + per_thread - 1) / per_thread;
    if (threads <= small_block || (per_thread == 8 && threads <= most))
      return {static_cast<unsigned>((threads + warp - 1) / warp * warp), per_thread};
  }
  return strided();
}

ColumnReduction column_reduction_launch(std::int64_t rows, std::int64_t length) {
  constexpr std::int64_t rows_per_lane = 32;
  const std::int64_t rows_per_block = column_block_lanes * rows_per_lane;
  if (rows <= 0 || length <= 0) return {0, 0, rows_per_block};
  return {static_cast<unsigned>((length + column_block_width - 1) / column_block_width),
          static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block), rows_per_block};
}

}  // namespace lb::cuda::logic
