#include "harness/check/validate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include "harness/check/reference.hpp"
#include "harness/check/reference_memory_bound.hpp"

namespace lb {

std::vector<std::int64_t> validation_indices(std::int64_t total) {
  std::vector<std::int64_t> indices;
  if (total <= validate_full_limit) {
    for (std::int64_t i = 0; i < total; ++i) indices.push_back(i);
    return indices;
  }
  std::mt19937_64 generator(0x6c62'7661'6c69'6461ull);  // fixed: "lbvalida"
  const double stratum = static_cast<double>(total) / validate_sample_size;
  for (std::int64_t s = 0; s < validate_sample_size; ++s) {
    const auto begin = static_cast<std::int64_t>(s * stratum);
    const auto end = static_cast<std::int64_t>((s + 1) * stratum);  // exclusive, > begin
    indices.push_back(begin + static_cast<std::int64_t>(generator() % (end - begin)));
  }
  return indices;
}

namespace {
// The reference at `indices` (where several answers are right, the one nearest the output),
// computed on every hardware thread: a sampled weight gradient of a large layer sums millions of
// products per element.
std::vector<double> reference_values(const Problem& problem, const std::vector<HostTensor>& inputs,
                                     const std::vector<std::int64_t>& indices,
                                     const std::vector<float>& output) {
  std::vector<double> values(indices.size());
  if (indices.empty()) return values;
  reference_at(problem, inputs, indices[0]);  // throws here, not in a worker, for bad inputs
  const std::size_t workers =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, (indices.size() + 255) / 256);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (std::size_t n = w; n < indices.size(); n += workers)
        values[n] = reference_near(problem, inputs, indices[n],
                                   output[static_cast<std::size_t>(indices[n])]);
    });
  for (auto& t : threads) t.join();
  return values;
}
}  // namespace

Validation validate(const Problem& problem, const std::vector<HostTensor>& inputs,
                    const HostTensor& output, Precision precision) {
  const auto expected_dims = tensor_dims(problem).output;
  const std::int64_t total = element_count(expected_dims);
  if (output.dims != expected_dims || static_cast<std::int64_t>(output.data.size()) != total)
    throw std::invalid_argument("validate: the output does not have the problem's dimensions");

  const auto indices = validation_indices(total);
  const auto expected = reference_values(problem, inputs, indices, output.data);
  Validation v;
  v.tolerance = tolerance(precision);
  v.total_elements = total;
  double error2 = 0, reference2 = 0;
  bool finite = true;
  for (std::size_t n = 0; n < indices.size(); ++n) {
    const double out = output.data[static_cast<std::size_t>(indices[n])];
    const double ref = expected[n];
    if (!std::isfinite(out)) finite = false;
    const double diff = out - ref;
    error2 += diff * diff;
    reference2 += ref * ref;
    v.max_abs = std::max(v.max_abs, std::fabs(diff));
    ++v.checked_elements;
  }
  if (!finite) {
    v.rel_l2 = v.max_abs = std::numeric_limits<double>::infinity();
  } else if (reference2 > 0) {
    v.rel_l2 = std::sqrt(error2 / reference2);
  } else {  // an all-zero reference: only an exact answer is right
    v.rel_l2 = error2 == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  v.non_finite_elements = std::count_if(output.data.begin(), output.data.end(),
                                        [](float x) { return !std::isfinite(x); });
  if (problem.is_memory() && problem.memory().shape.op == MemoryOp::max_pool &&
      problem.memory().pass != Pass::fwd)
    v.misassigned_windows =
        max_pool_misassigned_windows(problem.memory().shape, inputs, output.data, indices);
  v.passed = v.non_finite_elements == 0 && v.misassigned_windows == 0 && v.rel_l2 <= v.tolerance;
  return v;
}

}  // namespace lb
