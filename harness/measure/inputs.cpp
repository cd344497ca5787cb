#include "harness/measure/inputs.hpp"

namespace lb {

namespace {
// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014; constants from Vigna's reference
// splitmix64.c): a statistically sound 64-bit generator in three multiply-xorshift steps.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

float uniform_from_bits(std::uint64_t bits) {
  const auto u = static_cast<std::int64_t>(bits >> 40);  // top 24 bits
  constexpr std::int64_t two24 = std::int64_t{1} << 24;
  // |2u + 1 - 2^24| < 2^24 fits FP32's 24-bit significand, so the division is exact.
  return static_cast<float>(2 * u + 1 - two24) / static_cast<float>(two24);
}

std::vector<HostTensor> make_inputs(const Problem& problem, std::uint64_t seed) {
  std::uint64_t state = seed;
  std::vector<HostTensor> tensors;
  const auto all = tensor_dims(problem);
  for (std::size_t i = 0; i < all.inputs.size(); ++i) {
    HostTensor t;
    t.dims = all.inputs[i];
    t.data.resize(static_cast<std::size_t>(element_count(t.dims)));
    const float offset = static_cast<int>(i) == all.positive_input ? 2.0f : 0.0f;
    for (float& v : t.data)
      v = round_to_storage(problem.precision, offset + uniform_from_bits(splitmix64(state)));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

}  // namespace lb
