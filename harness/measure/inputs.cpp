#include "harness/measure/inputs.hpp"

#include <random>

namespace lb {

float uniform_from_bits(std::uint64_t bits) {
  const auto u = static_cast<std::int64_t>(bits >> 40);  // top 24 bits
  constexpr std::int64_t two24 = std::int64_t{1} << 24;
  // |2u + 1 - 2^24| < 2^24 fits FP32's 24-bit significand, so the division is exact.
  return static_cast<float>(2 * u + 1 - two24) / static_cast<float>(two24);
}

std::vector<HostTensor> make_inputs(const Problem& problem, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<HostTensor> tensors;
  const auto all = tensor_dims(problem);
  for (std::size_t i = 0; i < all.inputs.size(); ++i) {
    HostTensor t;
    t.dims = all.inputs[i];
    t.data.resize(static_cast<std::size_t>(element_count(t.dims)));
    const float offset = static_cast<int>(i) == all.positive_input ? 2.0f : 0.0f;
    for (float& v : t.data)
      v = round_to_storage(problem.precision, offset + uniform_from_bits(generator()));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

}  // namespace lb
