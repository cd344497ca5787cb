#include "harness/check/reference_memory_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace lb {

namespace {

using Data = std::vector<float>;

// The row of a tensor normalised (or soft-maxed) over its last dimension.
struct Row {
  std::int64_t begin, length;
};
Row row_of(const MemoryShape& s, std::int64_t index) {
  const std::int64_t length = s.dims.back();
  return {index / length * length, length};
}

// Mean and 1/sqrt(variance + epsilon) (biased variance, as the frameworks normalise) of
// `count` values at x[first + i * step].
struct Moments {
  double mean, rstd;
};
Moments moments(const Data& x, std::int64_t first, std::int64_t count, std::int64_t step,
                std::int64_t inner, double epsilon) {
  // Elements first + (i / inner) * step + i % inner: `inner` contiguous values every `step`.
  double sum = 0;
  for (std::int64_t i = 0; i < count; ++i) sum += x[first + (i / inner) * step + i % inner];
  const double mean = sum / count;
  double squares = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double d = x[first + (i / inner) * step + i % inner] - mean;
    squares += d * d;
  }
  return {mean, 1 / std::sqrt(squares / count + epsilon)};
}

// The gradient of a normalisation y = gamma * (x - mean) * rstd + beta with respect to x, the
// statistics being those of the normalised group itself; with g = gamma * dy elementwise:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
// `gamma(at)` is gamma at element `at` (constant over a batch norm's channel, varying along a
// layer norm's row).
template <typename Gamma>
double normalisation_bwd(const Data& x, const Data& dy, Gamma gamma, std::int64_t index,
                         std::int64_t first, std::int64_t count, std::int64_t step,
                         std::int64_t inner, double epsilon) {
  const auto m = moments(x, first, count, step, inner, epsilon);
  double sum_g = 0, sum_g_xhat = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t at = first + (i / inner) * step + i % inner;
    const double g = gamma(at) * dy[at];
    sum_g += g;
    sum_g_xhat += g * (x[at] - m.mean) * m.rstd;
  }
  const double xhat = (x[index] - m.mean) * m.rstd;
  return m.rstd * (gamma(index) * dy[index] - sum_g / count - xhat * sum_g_xhat / count);
}

double batch_norm(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const auto& d = p.shape.dims;
  const std::int64_t plane = d[2] * d[3], c = index / plane % d[1];
  const auto& x = in[0].data;
  if (p.pass == Pass::fwd) {  // inference: the running statistics given
    const double mean = in[1].data[c], variance = in[2].data[c];
    return in[3].data[c] * (x[index] - mean) / std::sqrt(variance + batch_norm_epsilon) +
           in[4].data[c];
  }
  // The channel's N x H x W values: `plane` contiguous ones every C x plane.
  const std::int64_t first = c * plane, count = d[0] * plane, step = d[1] * plane;
  if (p.pass == Pass::fwd_training) {  // {x, gamma, beta}: the batch's own statistics
    const auto m = moments(x, first, count, step, plane, batch_norm_epsilon);
    return in[1].data[c] * (x[index] - m.mean) * m.rstd + in[2].data[c];
  }
  const double gamma = in[2].data[c];
  return normalisation_bwd(
      x, in[1].data, [gamma](std::int64_t) { return gamma; }, index, first, count, step, plane,
      batch_norm_epsilon);
}

double layer_norm(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const Row row = row_of(p.shape, index);
  const auto& x = in[0].data;
  if (p.pass == Pass::fwd) {
    const std::int64_t feature = index - row.begin;
    const auto m = moments(x, row.begin, row.length, row.length, row.length, layer_norm_epsilon);
    return in[1].data[feature] * (x[index] - m.mean) * m.rstd + in[2].data[feature];
  }
  const auto& gamma = in[2].data;
  return normalisation_bwd(
      x, in[1].data, [&](std::int64_t at) { return double(gamma[at - row.begin]); }, index,
      row.begin, row.length, row.length, row.length, layer_norm_epsilon);
}

double softmax(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const Row row = row_of(p.shape, index);
  const auto& x = in[0].data;
  double largest = -std::numeric_limits<double>::infinity(), sum = 0;
  for (std::int64_t i = 0; i < row.length; ++i)
    largest = std::max<double>(largest, x[row.begin + i]);
  for (std::int64_t i = 0; i < row.length; ++i) sum += std::exp(x[row.begin + i] - largest);
  const auto y = [&](std::int64_t at) { return std::exp(x[at] - largest) / sum; };
  if (p.pass == Pass::fwd) return y(index);
  // dx = y * (dy - sum(dy * y))
  const auto& dy = in[1].data;
  double dot = 0;
  for (std::int64_t i = 0; i < row.length; ++i) dot += dy[row.begin + i] * y(row.begin + i);
  return y(index) * (dy[index] - dot);
}

double eltwise(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const double x = in[0].data[index];
  const bool relu = p.shape.op == MemoryOp::relu;
  if (p.pass == Pass::fwd)
    return relu ? std::max(x, 0.0) : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  const double dy = in[1].data[index];
  if (relu) return x > 0 ? dy : 0;
  // d/dx [x Phi(x)] = Phi(x) + x phi(x)
  const double pi = 3.14159265358979323846;
  return dy *
         (0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-x * x / 2) / std::sqrt(2 * pi));
}

double add(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const auto per_image = static_cast<std::int64_t>(in[1].data.size());
  return double(in[0].data[index]) + in[1].data[p.shape.broadcast ? index % per_image : index];
}

// Pooling over N C H W with a square window; `visit(h, w)` sees each in-bounds input position
// of output (p, q).
template <typename Visit>
void window_of(const MemoryShape& s, std::int64_t p, std::int64_t q, Visit visit) {
  for (std::int64_t r = 0; r < s.window; ++r) {
    const std::int64_t h = p * s.stride - s.pad + r;
    if (h < 0 || h >= s.dims[2]) continue;
    for (std::int64_t t = 0; t < s.window; ++t) {
      const std::int64_t w = q * s.stride - s.pad + t;
      if (w >= 0 && w < s.dims[3]) visit(h, w);
    }
  }
}

// Every output (p, q) whose window holds input element `index` (N C H W, flat): `visit(out, p, q)`
// with out the output's flat index. Only outputs p with p * stride - pad <= h < p * stride - pad +
// window can hold (h, w).
template <typename Visit>
void for_each_window_holding(const MemoryShape& s, std::int64_t index, Visit visit) {
  const std::int64_t H = s.dims[2], W = s.dims[3], P = s.pooled(H), Q = s.pooled(W);
  const std::int64_t h = index / W % H, w = index % W, image = index / (H * W);
  const auto first = [&](std::int64_t i) {
    return std::max<std::int64_t>(0, (i + s.pad - s.window + s.stride) / s.stride);
  };
  const auto last = [&](std::int64_t i, std::int64_t n) {
    return std::min(n - 1, (i + s.pad) / s.stride);
  };
  for (std::int64_t pp = first(h); pp <= last(h, P); ++pp)
    for (std::int64_t q = first(w); q <= last(w, Q); ++q) {
      bool holds = false;
      window_of(s, pp, q, [&](std::int64_t hh, std::int64_t ww) { holds |= hh == h && ww == w; });
      if (holds) visit(image * P * Q + pp * Q + q, pp, q);
    }
}

double pool(const MemoryProblem& p, const std::vector<HostTensor>& in, std::int64_t index) {
  const auto& s = p.shape;
  const std::int64_t H = s.dims[2], W = s.dims[3], P = s.pooled(H), Q = s.pooled(W);
  const bool max = s.op == MemoryOp::max_pool;
  const auto& x = in[0].data;  // fwd and max bwd: x; avg bwd: dy
  if (p.pass == Pass::fwd) {
    const std::int64_t plane = index / (P * Q) * H * W, at = index % (P * Q);
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    std::int64_t count = 0;
    window_of(s, at / Q, at % Q, [&](std::int64_t h, std::int64_t w) {
      best = std::max<double>(best, x[plane + h * W + w]);
      sum += x[plane + h * W + w];
      ++count;
    });
    return max ? best : sum / count;  // average over the window's in-bounds part
  }
  // dx[h][w]: every output whose window holds (h, w) passes its gradient back: all of it to
  // the window's maximum (max_pool_gradient), or 1/count of it to each element.
  if (max) return max_pool_gradient(s, in, index).first_in_scan_order();
  double sum = 0;
  for_each_window_holding(s, index, [&](std::int64_t out, std::int64_t pp, std::int64_t q) {
    std::int64_t count = 0;
    window_of(s, pp, q, [&](std::int64_t, std::int64_t) { ++count; });
    sum += x[out] / count;
  });
  return sum;
}

}  // namespace

MaxPoolGradient max_pool_gradient(const MemoryShape& s, const std::vector<HostTensor>& in,
                                  std::int64_t index) {
  const std::int64_t H = s.dims[2], W = s.dims[3];
  const std::int64_t plane = index / (H * W) * H * W, at = index % (H * W);
  const auto& x = in[0].data;
  const auto& dy = in[1].data;
  const double here = x[index];
  MaxPoolGradient g;
  for_each_window_holding(s, index, [&](std::int64_t out, std::int64_t pp, std::int64_t q) {
    double best = -std::numeric_limits<double>::infinity();
    std::int64_t first = -1, maxima = 0;
    window_of(s, pp, q, [&](std::int64_t hh, std::int64_t ww) {
      const double v = x[plane + hh * W + ww];
      if (v > best) best = v, first = hh * W + ww, maxima = 0;
      if (v == best) ++maxima;
    });
    if (here != best) return;
    if (maxima == 1) {
      g.certain += dy[out];
    } else {
      g.tied.push_back(dy[out]);
      g.first_of_tied.push_back(first == at);
      g.tied_windows.push_back(out);
    }
  });
  return g;
}

double MaxPoolGradient::first_in_scan_order() const {
  double sum = certain;
  for (std::size_t i = 0; i < tied.size(); ++i)
    if (first_of_tied[i]) sum += tied[i];
  return sum;
}

double MaxPoolGradient::closest_to(double observed) const {
  const std::uint64_t subset = closest_subset(observed);
  double sum = certain;
  for (std::size_t i = 0; i < tied.size(); ++i)
    if (subset >> i & 1) sum += tied[i];
  return sum;
}

std::uint64_t MaxPoolGradient::closest_subset(double observed) const {
  // An element lies in at most ceil(window / stride)^2 windows (4 for 3x3 with stride 2), so
  // trying every subset of its tied windows stays small; beyond max_enumerated the scan-order
  // answer stands.
  constexpr std::size_t max_enumerated = 12;
  if (tied.size() > max_enumerated) {
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < tied.size(); ++i)
      if (first_of_tied[i]) first |= 1ull << i;
    return first;
  }
  std::uint64_t best = 0;
  double best_distance = std::fabs(observed - certain);
  for (std::uint64_t subset = 1; subset < (1ull << tied.size()); ++subset) {
    double sum = certain;
    for (std::size_t i = 0; i < tied.size(); ++i)
      if (subset >> i & 1) sum += tied[i];
    if (std::fabs(observed - sum) < best_distance)
      best = subset, best_distance = std::fabs(observed - sum);
  }
  return best;
}

std::int64_t max_pool_misassigned_windows(const MemoryShape& s, const std::vector<HostTensor>& in,
                                          const std::vector<float>& dx,
                                          const std::vector<std::int64_t>& indices) {
  const std::int64_t H = s.dims[2], W = s.dims[3], P = s.pooled(H), Q = s.pooled(W);
  const auto& x = in[0].data;
  std::set<std::int64_t> checked;
  std::int64_t misassigned = 0;
  for (const std::int64_t index : indices)
    for (const std::int64_t window : max_pool_gradient(s, in, index).tied_windows) {
      if (!checked.insert(window).second) continue;
      // The window's maxima, each asked whether its dx took this window's gradient.
      const std::int64_t plane = window / (P * Q) * H * W, p = window % (P * Q) / Q, q = window % Q;
      double best = -std::numeric_limits<double>::infinity();
      window_of(s, p, q, [&](std::int64_t h, std::int64_t w) {
        best = std::max<double>(best, x[plane + h * W + w]);
      });
      int takers = 0;
      window_of(s, p, q, [&](std::int64_t h, std::int64_t w) {
        const std::int64_t at = plane + h * W + w;
        if (x[at] != best) return;
        const MaxPoolGradient g = max_pool_gradient(s, in, at);
        const std::uint64_t taken = g.closest_subset(dx[static_cast<std::size_t>(at)]);
        for (std::size_t i = 0; i < g.tied_windows.size(); ++i)
          if (g.tied_windows[i] == window && (taken >> i & 1)) ++takers;
      });
      misassigned += takers != 1;
    }
  return misassigned;
}

double memory_reference_at(const MemoryProblem& problem, const std::vector<HostTensor>& inputs,
                           std::int64_t index) {
  switch (problem.shape.op) {
    case MemoryOp::batch_norm:
      return batch_norm(problem, inputs, index);
    case MemoryOp::layer_norm:
      return layer_norm(problem, inputs, index);
    case MemoryOp::softmax:
      return softmax(problem, inputs, index);
    case MemoryOp::relu:
    case MemoryOp::gelu_erf:
      return eltwise(problem, inputs, index);
    case MemoryOp::add:
      return add(problem, inputs, index);
    case MemoryOp::max_pool:
    case MemoryOp::avg_pool:
      return pool(problem, inputs, index);
  }
  throw std::logic_error("reference: unknown memory-bound operation");
}

}  // namespace lb
