#include "kernels/cuda/logic/conv_graph.hpp"

#include <stdexcept>

namespace lb::cuda::logic {

std::array<std::int64_t, 4> packed_strides(const std::array<std::int64_t, 4>& d, Layout layout) {
  if (layout == Layout::nchw) return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  return {d[2] * d[3] * d[1], 1, d[3] * d[1], d[1]};
}

ConvGraphSpec conv_graph_spec(const ConvShape& s, Layout layout) {
  ConvGraphSpec g;
  g.x.dims = {s.n, s.c, s.h, s.w};
  g.w.dims = {s.k, s.c / s.groups, s.r, s.s};
  g.y.dims = {s.n, s.k, s.p(), s.q()};
  g.x.uid = 1, g.w.uid = 2, g.y.uid = 3;
  for (TensorSpec* t : {&g.x, &g.w, &g.y}) t->strides = packed_strides(t->dims, layout);
  g.pre_padding = g.post_padding = {s.pad_h, s.pad_w};
  g.stride = {s.stride_h, s.stride_w};
  g.dilation = {s.dil_h, s.dil_w};
  return g;
}

PassTensors pass_tensors(const ConvGraphSpec& g, Pass pass) {
  switch (pass) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:
      return {{&g.x, &g.w}, &g.y};
    case Pass::bwd_data:
      return {{&g.y, &g.w}, &g.x};
    case Pass::bwd_weights:
      return {{&g.x, &g.y}, &g.w};
  }
  throw std::invalid_argument("unknown pass");
}

namespace {
// Calls f(canonical_index, strided_index) for every element.
template <typename F>
void for_each_element(const TensorSpec& t, F&& f) {
  const auto& d = t.dims;
  const auto& st = t.strides;
  std::int64_t i = 0;
  for (std::int64_t a = 0; a < d[0]; ++a)
    for (std::int64_t b = 0; b < d[1]; ++b)
      for (std::int64_t c = 0; c < d[2]; ++c)
        for (std::int64_t e = 0; e < d[3]; ++e)
          f(i++, a * st[0] + b * st[1] + c * st[2] + e * st[3]);
}

void check_size(std::size_t size, const TensorSpec& t) {
  if (static_cast<std::int64_t>(size) != t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3])
    throw std::invalid_argument("tensor data does not match its dimensions");
}
}  // namespace

std::vector<float> to_strided(const std::vector<float>& canonical, const TensorSpec& t) {
  check_size(canonical.size(), t);
  std::vector<float> out(canonical.size());
  for_each_element(t, [&](std::int64_t c, std::int64_t s) { out[s] = canonical[c]; });
  return out;
}

std::vector<float> from_strided(const std::vector<float>& strided, const TensorSpec& t) {
  check_size(strided.size(), t);
  std::vector<float> out(strided.size());
  for_each_element(t, [&](std::int64_t c, std::int64_t s) { out[c] = strided[s]; });
  return out;
}

}  // namespace lb::cuda::logic
