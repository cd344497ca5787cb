#pragma once
// The double-precision reference: plain loops, one output element at a time, so that large
// outputs can be checked on a sample. Inputs are in the canonical layouts of
// harness/api/problem.hpp (the order of tensor_dims(problem).inputs); output_index is the flat
// row-major index into tensor_dims(problem).output.
#include <cstdint>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"

namespace lb {

double reference_at(const Problem& problem, const std::vector<HostTensor>& inputs,
                    std::int64_t output_index);

// The reference at output_index or, where more than one answer is right (max-pool backward, whose
// tied maxima may each take a window's gradient), the right answer closest to `observed`.
double reference_near(const Problem& problem, const std::vector<HostTensor>& inputs,
                      std::int64_t output_index, double observed);

// Every output element (for small problems and tests).
std::vector<double> reference_all(const Problem& problem, const std::vector<HostTensor>& inputs);

}  // namespace lb
