#pragma once
// The double-precision reference of the memory-bound problems (harness/check/reference.hpp's
// contract: inputs in tensor_dims order, one output element at a time).
#include <cstdint>
#include <vector>

#include "harness/backend.hpp"
#include "harness/problem.hpp"

namespace lb {

double memory_reference_at(const MemoryProblem& problem, const std::vector<HostTensor>& inputs,
                           std::int64_t index);

}  // namespace lb
