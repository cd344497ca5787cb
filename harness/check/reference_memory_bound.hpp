#pragma once
// The double-precision reference of the memory-bound problems (harness/check/reference.hpp's
// contract: inputs in tensor_dims order, one output element at a time).
#include <cstdint>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"

namespace lb {

double memory_reference_at(const MemoryProblem& problem, const std::vector<HostTensor>& inputs,
                           std::int64_t index);

// Max-pool backward at input element `index`: cuDNN gives a window's gradient to one of its tied
// maxima, not necessarily the first in scan order (bf16 and fp16 inputs tie often), so the right
// dx of an element that ties for a window's maximum is open. `certain` sums the gradients of the
// windows whose maximum it alone holds; `tied` holds those of the windows where it ties, each of
// which it may receive or not.
struct MaxPoolGradient {
  double certain = 0;
  std::vector<double> tied;
  std::vector<bool> first_of_tied;         // whether the element is that window's first maximum
  std::vector<std::int64_t> tied_windows;  // each tied window's output index (flat, N C P Q)

  // The scan-order convention (the reference's own answer): a tied window's gradient to its first
  // maximum.
  double first_in_scan_order() const;
  // certain plus the subset of `tied` closest to `observed`: the right answer that the backend
  // may have chosen.
  double closest_to(double observed) const;
  // That subset, as a bit per entry of `tied`.
  std::uint64_t closest_subset(double observed) const;
};
MaxPoolGradient max_pool_gradient(const MemoryShape& shape, const std::vector<HostTensor>& inputs,
                                  std::int64_t index);

// Element by element, closest_to lets each tied maximum keep or refuse a tied window's gradient,
// so a backend that gives it to none of them (or to several) would pass. Window by window: of
// the tied windows that the elements at `indices` lie in, how many were not given to exactly one
// of their maxima, as each maximum's dx (closest_subset) says. `dx` is the backend's output.
std::int64_t max_pool_misassigned_windows(const MemoryShape& shape,
                                          const std::vector<HostTensor>& inputs,
                                          const std::vector<float>& dx,
                                          const std::vector<std::int64_t>& indices);

}  // namespace lb
