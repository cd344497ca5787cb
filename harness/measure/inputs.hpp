#pragma once
// Random benchmark inputs, deterministic per seed.
#include <cstdint>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"

namespace lb {

// The inputs a problem reads (tensor_dims(problem).inputs, in order, canonical layout), filled
// from one SplitMix64 generator seeded with `seed`, tensor after tensor (faster than
// std::mt19937_64: docs/measuring.md, "Points"). Each draw's top 24 bits u map to
// (2u + 1 - 2^24) / 2^24: uniform in (-1, 1), exactly representable in FP32, and never zero (the
// numerator is odd); tensor_dims' positive_input (a variance) gets 2 + that, in (1, 3). Values
// are then rounded with round_to_storage(precision), so the reference computes on exactly the
// values the device stores.
std::vector<HostTensor> make_inputs(const Problem& problem, std::uint64_t seed);

// The mapping above for one 64-bit draw (exposed for the tests).
float uniform_from_bits(std::uint64_t bits);

}  // namespace lb
