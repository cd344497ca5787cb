#include "harness/check/reference.hpp"

#include "harness/check/reference_memory_bound.hpp"

#include <stdexcept>
#include <string>

namespace lb {

namespace {

// Row-major index helpers over canonical 4-D tensors.
struct Dims4 {
  std::int64_t d0, d1, d2, d3;
  std::int64_t at(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) const {
    return ((a * d1 + b) * d2 + c) * d3 + d;
  }
};

double conv_fwd(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& w,
                std::int64_t index) {
  const std::int64_t P = s.p(), Q = s.q(), cg = s.c / s.groups, kg = s.k / s.groups;
  const std::int64_t q = index % Q, p = (index / Q) % P, k = (index / (Q * P)) % s.k,
                     n = index / (Q * P * s.k);
  const Dims4 xd{s.n, s.c, s.h, s.w}, wd{s.k, cg, s.r, s.s};
  const std::int64_t group = k / kg;
  double sum = 0;
  for (std::int64_t c = 0; c < cg; ++c)
    for (std::int64_t r = 0; r < s.r; ++r) {
      const std::int64_t h = p * s.stride_h - s.pad_h + r * s.dil_h;
      if (h < 0 || h >= s.h) continue;
      for (std::int64_t t = 0; t < s.s; ++t) {
        const std::int64_t col = q * s.stride_w - s.pad_w + t * s.dil_w;
        if (col < 0 || col >= s.w) continue;
        sum += double(x[xd.at(n, group * cg + c, h, col)]) * double(w[wd.at(k, c, r, t)]);
      }
    }
  return sum;
}

// dx[n][c][h][w] = sum over the (k, r, s, p, q) whose forward window read x[n][c][h][w].
double conv_bwd_data(const ConvShape& s, const std::vector<float>& dy, const std::vector<float>& w,
                     std::int64_t index) {
  const std::int64_t P = s.p(), Q = s.q(), cg = s.c / s.groups, kg = s.k / s.groups;
  const std::int64_t col = index % s.w, h = (index / s.w) % s.h, c = (index / (s.w * s.h)) % s.c,
                     n = index / (s.w * s.h * s.c);
  const Dims4 yd{s.n, s.k, P, Q}, wd{s.k, cg, s.r, s.s};
  const std::int64_t group = c / cg, cin = c % cg;
  double sum = 0;
  for (std::int64_t r = 0; r < s.r; ++r) {
    const std::int64_t ph = h + s.pad_h - r * s.dil_h;  // = p * stride_h
    if (ph < 0 || ph % s.stride_h != 0 || ph / s.stride_h >= P) continue;
    const std::int64_t p = ph / s.stride_h;
    for (std::int64_t t = 0; t < s.s; ++t) {
      const std::int64_t qw = col + s.pad_w - t * s.dil_w;
      if (qw < 0 || qw % s.stride_w != 0 || qw / s.stride_w >= Q) continue;
      const std::int64_t q = qw / s.stride_w;
      for (std::int64_t k = group * kg; k < (group + 1) * kg; ++k)
        sum += double(dy[yd.at(n, k, p, q)]) * double(w[wd.at(k, cin, r, t)]);
    }
  }
  return sum;
}

double conv_bwd_weights(const ConvShape& s, const std::vector<float>& x,
                        const std::vector<float>& dy, std::int64_t index) {
  const std::int64_t P = s.p(), Q = s.q(), cg = s.c / s.groups, kg = s.k / s.groups;
  const std::int64_t t = index % s.s, r = (index / s.s) % s.r, c = (index / (s.s * s.r)) % cg,
                     k = index / (s.s * s.r * cg);
  const Dims4 xd{s.n, s.c, s.h, s.w}, yd{s.n, s.k, P, Q};
  const std::int64_t channel = (k / kg) * cg + c;
  double sum = 0;
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t p = 0; p < P; ++p) {
      const std::int64_t h = p * s.stride_h - s.pad_h + r * s.dil_h;
      if (h < 0 || h >= s.h) continue;
      for (std::int64_t q = 0; q < Q; ++q) {
        const std::int64_t col = q * s.stride_w - s.pad_w + t * s.dil_w;
        if (col < 0 || col >= s.w) continue;
        sum += double(x[xd.at(n, channel, h, col)]) * double(dy[yd.at(n, k, p, q)]);
      }
    }
  return sum;
}

double gemm(const GemmShape& g, const std::vector<float>& a, const std::vector<float>& b,
            std::int64_t index) {
  const std::int64_t j = index % g.n, i = (index / g.n) % g.m, batch = index / (g.n * g.m);
  const float* A = a.data() + batch * g.m * g.k;
  const float* B = b.data() + batch * g.k * g.n;
  double sum = 0;
  for (std::int64_t l = 0; l < g.k; ++l) {
    const float av = g.trans_a ? A[l * g.m + i] : A[i * g.k + l];
    const float bv = g.trans_b ? B[j * g.k + l] : B[l * g.n + j];
    sum += double(av) * double(bv);
  }
  return sum;
}

void check_inputs(const Problem& problem, const std::vector<HostTensor>& inputs) {
  const auto dims = tensor_dims(problem);
  if (inputs.size() != dims.inputs.size())
    throw std::invalid_argument("reference: expected " + std::to_string(dims.inputs.size()) +
                                " inputs, got " + std::to_string(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].dims != dims.inputs[i] ||
        static_cast<std::int64_t>(inputs[i].data.size()) != element_count(dims.inputs[i]))
      throw std::invalid_argument("reference: input " + std::to_string(i) +
                                  " does not have the problem's dimensions");
}

}  // namespace

double reference_near(const Problem& problem, const std::vector<HostTensor>& inputs,
                      std::int64_t output_index, double observed) {
  if (problem.is_memory() && problem.memory().shape.op == MemoryOp::max_pool &&
      problem.memory().pass != Pass::fwd) {
    check_inputs(problem, inputs);
    return max_pool_gradient(problem.memory().shape, inputs, output_index).closest_to(observed);
  }
  return reference_at(problem, inputs, output_index);
}

double reference_at(const Problem& problem, const std::vector<HostTensor>& inputs,
                    std::int64_t output_index) {
  check_inputs(problem, inputs);
  if (problem.is_memory()) return memory_reference_at(problem.memory(), inputs, output_index);
  const auto& in0 = inputs[0].data;
  const auto& in1 = inputs[1].data;
  if (!problem.is_conv()) return gemm(problem.gemm().shape, in0, in1, output_index);
  const auto& c = problem.conv();
  switch (c.pass) {
    case Pass::fwd:
      return conv_fwd(c.shape, in0, in1, output_index);
    case Pass::bwd_data:
      return conv_bwd_data(c.shape, in0, in1, output_index);
    case Pass::bwd_weights:
      return conv_bwd_weights(c.shape, in0, in1, output_index);
    case Pass::fwd_training:  // check_inputs' tensor_dims has refused it
      break;
  }
  throw std::logic_error("reference: unknown pass");
}

std::vector<double> reference_all(const Problem& problem, const std::vector<HostTensor>& inputs) {
  const std::int64_t total = element_count(tensor_dims(problem).output);
  std::vector<double> out(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) out[i] = reference_at(problem, inputs, i);
  return out;
}

}  // namespace lb
