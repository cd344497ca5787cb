#pragma once
// Checks a backend's output against the double-precision reference (harness/reference).
#include <cstdint>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"
#include "harness/results/point.hpp"

namespace lb {

// Outputs up to this many elements are checked in full; larger ones on a sample.
inline constexpr std::int64_t validate_full_limit = 16384;
inline constexpr std::int64_t validate_sample_size = 4096;

// The output elements validate() checks: all of them up to validate_full_limit, otherwise
// validate_sample_size distinct indices, one drawn uniformly from each of that many equal
// strata of the output (fixed seed, so every run checks the same elements). Sorted.
std::vector<std::int64_t> validation_indices(std::int64_t total_elements);

// Relative L2 error sqrt(sum (out-ref)^2 / sum ref^2) and max |out-ref| over
// validation_indices(); passed when rel_l2 <= tolerance(p) and EVERY output element is finite
// (all of them are scanned, sampled or not: GPU outputs are poisoned with NaN before the first
// run, so an element the library never wrote fails validation even outside the sample). Max-pool
// backward also needs every tied window's gradient given to exactly one of its maxima
// (max_pool_misassigned_windows over the checked elements' windows).
Validation validate(const Problem& problem, const std::vector<HostTensor>& inputs,
                    const HostTensor& output, Precision precision);

}  // namespace lb
