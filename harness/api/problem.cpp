#include "harness/api/problem.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace lb {

namespace {
// floor((in + 2*pad - dil*(window-1) - 1) / stride) + 1, and 0 when the window does not fit
// (C++ division truncates towards zero, which would round a negative span up).
std::int64_t output_size(std::int64_t in, std::int64_t pad, std::int64_t dil, std::int64_t window,
                         std::int64_t stride) {
  const std::int64_t span = in + 2 * pad - dil * (window - 1) - 1;
  return span < 0 || stride <= 0 ? 0 : span / stride + 1;
}
}  // namespace

std::int64_t MemoryShape::pooled(std::int64_t in) const {
  return output_size(in, pad, 1, window, stride);
}

std::string_view name(MemoryOp op) {
  switch (op) {
    case MemoryOp::batch_norm:
      return "batch_norm";
    case MemoryOp::layer_norm:
      return "layer_norm";
    case MemoryOp::relu:
      return "relu";
    case MemoryOp::gelu_erf:
      return "gelu_erf";
    case MemoryOp::add:
      return "add";
    case MemoryOp::max_pool:
      return "max_pool";
    case MemoryOp::avg_pool:
      return "avg_pool";
    case MemoryOp::softmax:
      return "softmax";
  }
  return "?";
}

std::int64_t ConvShape::p() const { return output_size(h, pad_h, dil_h, r, stride_h); }
std::int64_t ConvShape::q() const { return output_size(w, pad_w, dil_w, s, stride_w); }

GemmShape gemm_for_pass(const GemmShape& f, Pass pass) {
  if (pass == Pass::fwd) return f;
  if (pass == Pass::fwd_training) throw std::invalid_argument("a GEMM has no pass fwd_training");
  if (f.trans_a) throw std::invalid_argument("training passes of a GEMM with transposed A");
  GemmShape g;
  g.batch = f.batch;
  if (pass == Pass::bwd_data) {
    // dA[M][K] = dC[M][N] . op(B)^T; op(B)^T is B's storage read the other way.
    g.m = f.m, g.n = f.k, g.k = f.n;
    g.trans_a = false, g.trans_b = !f.trans_b;
  } else {
    // dB = op(A)^T . dC, computed in B's own storage layout. Both operands are then read
    // transposed from how the forward pass stored them: A (or dC) as [M][.] with M the new K.
    //   B stored [K][N]: dB[K][N] = A^T . dC      B stored [N][K]: dB[N][K] = dC^T . A
    g.m = f.trans_b ? f.n : f.k;
    g.n = f.trans_b ? f.k : f.n;
    g.k = f.m;
    g.trans_a = true, g.trans_b = false;
  }
  return g;
}

std::int64_t element_count(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d < 0) throw std::invalid_argument("a tensor dimension is negative: " + std::to_string(d));
    // Checked before multiplying: a wrapped count would size buffers and byte counts wrongly.
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw std::overflow_error("a tensor of more than 2^63 - 1 elements");
    n *= d;
  }
  return n;
}

namespace {
TensorDims memory_tensor_dims(const MemoryProblem& m) {
  const auto& s = m.shape;
  const auto& x = s.dims;
  const bool fwd = m.pass == Pass::fwd;
  // Below, any pass but fwd reads as bwd_data: another op's training forward would get its
  // backward's tensors.
  if (m.pass == Pass::fwd_training && s.op != MemoryOp::batch_norm)
    throw std::invalid_argument("pass fwd_training is batch norm's only, not " +
                                std::string(name(s.op)) + "'s");
  switch (s.op) {
    case MemoryOp::batch_norm: {
      const std::vector<std::int64_t> channel{x.at(1)};
      if (fwd) return {{x, channel, channel, channel, channel}, x, 2};
      if (m.pass == Pass::fwd_training) return {{x, channel, channel}, x};
      return {{x, x, channel}, x};
    }
    case MemoryOp::layer_norm: {
      const std::vector<std::int64_t> features{x.back()};
      if (fwd) return {{x, features, features}, x};
      return {{x, x, features}, x};
    }
    case MemoryOp::add: {
      auto b = x;
      if (s.broadcast) b.at(0) = 1;
      return {{x, b}, x};
    }
    case MemoryOp::max_pool:
    case MemoryOp::avg_pool: {
      const std::vector<std::int64_t> y{x.at(0), x.at(1), s.pooled(x.at(2)), s.pooled(x.at(3))};
      if (fwd) return {{x}, y};
      if (s.op == MemoryOp::avg_pool) return {{y}, x};
      return {{x, y}, x};
    }
    case MemoryOp::relu:
    case MemoryOp::gelu_erf:
    case MemoryOp::softmax:
      if (fwd) return {{x}, x};
      return {{x, x}, x};
  }
  throw std::logic_error("tensor_dims: unknown memory-bound operation");
}
}  // namespace

bool runs_in_place(const MemoryProblem& problem) {
  return problem.shape.in_place && problem.pass == Pass::fwd;
}

TensorDims tensor_dims(const Problem& problem) {
  if (problem.is_memory()) return memory_tensor_dims(problem.memory());
  if (problem.is_conv()) {
    const auto& c = problem.conv();
    const auto& s = c.shape;
    const std::vector<std::int64_t> x{s.n, s.c, s.h, s.w}, w{s.k, s.c / s.groups, s.r, s.s},
        y{s.n, s.k, s.p(), s.q()};
    switch (c.pass) {
      case Pass::fwd:
        return {{x, w}, y};
      case Pass::bwd_data:
        return {{y, w}, x};
      case Pass::bwd_weights:
        return {{x, y}, w};
      case Pass::fwd_training:
        throw std::invalid_argument("a convolution has no pass fwd_training");
    }
  }
  const auto& g = problem.gemm().shape;
  const std::vector<std::int64_t> a = g.trans_a ? std::vector<std::int64_t>{g.batch, g.k, g.m}
                                                : std::vector<std::int64_t>{g.batch, g.m, g.k};
  const std::vector<std::int64_t> b = g.trans_b ? std::vector<std::int64_t>{g.batch, g.n, g.k}
                                                : std::vector<std::int64_t>{g.batch, g.k, g.n};
  return {{a, b}, {g.batch, g.m, g.n}};
}

double flop_count(const Problem& problem) {
  if (problem.is_memory()) return 0;
  if (problem.is_conv()) {
    const auto& s = problem.conv().shape;
    // Every pass of a convolution performs the same multiply-adds: N*K*P*Q*(C/groups)*R*S.
    return 2.0 * s.n * s.k * s.p() * s.q() * (s.c / s.groups) * s.r * s.s;
  }
  const auto& g = problem.gemm().shape;
  return 2.0 * g.batch * g.m * g.n * g.k;
}

double min_bytes(const Problem& problem) {
  const auto dims = tensor_dims(problem);
  double elements_in = 0;
  for (const auto& d : dims.inputs) elements_in += static_cast<double>(element_count(d));
  return elements_in * input_bytes(problem.precision) +
         static_cast<double>(element_count(dims.output)) * output_bytes(problem.precision);
}

std::string describe(const Problem& problem) {
  std::ostringstream o;
  if (problem.is_memory()) {
    const auto& s = problem.memory().shape;
    o << name(s.op);
    for (std::size_t i = 0; i < s.dims.size(); ++i) o << (i ? "x" : " ") << s.dims[i];
    if (s.broadcast) o << " + 1x...";
    if (runs_in_place(problem.memory())) o << " in place";
    if (s.op == MemoryOp::max_pool || s.op == MemoryOp::avg_pool)
      o << " window " << s.window << " stride " << s.stride << " pad " << s.pad;
    return o.str();
  }
  if (problem.is_conv()) {
    const auto& s = problem.conv().shape;
    o << "N" << s.n << " C" << s.c << " H" << s.h << " W" << s.w << " K" << s.k << " R" << s.r
      << " S" << s.s << " stride " << s.stride_h << "x" << s.stride_w << " pad " << s.pad_h << "x"
      << s.pad_w;
    if (s.dil_h != 1 || s.dil_w != 1) o << " dil " << s.dil_h << "x" << s.dil_w;
    if (s.groups != 1) o << " groups " << s.groups;
  } else {
    const auto& g = problem.gemm().shape;
    o << g.batch << "x[" << g.m << "x" << g.k << "]" << (g.trans_a ? "^T" : "") << ".[" << g.k
      << "x" << g.n << "]" << (g.trans_b ? "^T" : "");
  }
  return o.str();
}

}  // namespace lb
