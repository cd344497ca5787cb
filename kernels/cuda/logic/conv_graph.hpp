#pragma once
// What the cuDNN graph API is told about a convolution, and how host data is laid out for it.
// Pure logic: no cuDNN header. cuDNN describes every tensor by dimensions in the logical order
// N,C,H,W (filters K,C/groups,R,S) plus strides, so the memory layout lives in the strides alone.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/problem.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda::logic {

struct TensorSpec {
  std::array<std::int64_t, 4> dims{};     // logical order: N,C,H,W or K,C/groups,R,S
  std::array<std::int64_t, 4> strides{};  // elements; NCHW-packed or NHWC-packed
  std::int64_t uid = 0;                   // cuDNN's unique id, also the variant-pack key
};

// Strides of a packed 4-d tensor with logical dims (d0,d1,d2,d3): nchw keeps that order in
// memory, nhwc moves d1 innermost (channels last; for filters that is K,R,S,C/groups).
std::array<std::int64_t, 4> packed_strides(const std::array<std::int64_t, 4>& dims, Layout layout);

struct ConvGraphSpec {
  TensorSpec x, w, y;  // input, filter, output of the forward convolution
  // Per spatial dimension (H, W): the attributes of CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR.
  // Padding is symmetric in layerbench, so post-padding equals pre-padding.
  std::array<std::int64_t, 2> pre_padding{}, post_padding{}, stride{}, dilation{};
  // The group count is not an attribute: cuDNN infers it from x's C over w's C/groups.
};

ConvGraphSpec conv_graph_spec(const ConvShape& shape, Layout layout);

// Which graph tensors a pass reads (in the order of tensor_dims(problem).inputs) and writes.
//   fwd {x, w} -> y;  bwd_data {y as dy, w} -> x as dx;  bwd_weights {x, y as dy} -> w as dw
struct PassTensors {
  std::vector<const TensorSpec*> inputs;
  const TensorSpec* output = nullptr;
};
PassTensors pass_tensors(const ConvGraphSpec& spec, Pass pass);

// Scatter a canonical packed tensor (logical dims, row-major) into a buffer with `strides`,
// and gather it back. Both buffers hold element_count(dims) values.
std::vector<float> to_strided(const std::vector<float>& canonical, const TensorSpec& spec);
std::vector<float> from_strided(const std::vector<float>& strided, const TensorSpec& spec);

}  // namespace lb::cuda::logic
