#pragma once
// The CPU backend: oneDNN convolutions (forward, backward data, backward weights) and matmul
// for GEMMs. Memory formats are oneDNN's choice ("any"); inputs are reordered into them once, in
// prepare. FP32 runs with fpmath mode strict; BF16/FP16 run where oneDNN implements them on this
// CPU and are otherwise unsupported with oneDNN's own reason; TF32 and FP8 are unsupported.
#include <memory>

#include "harness/api/backend.hpp"
#include "harness/api/backend_descriptor.hpp"

namespace lb::onednn {

// oneDNN as bench/backend_registry.cpp lists it: the CPU, its probe, --version row and backend.
const BackendDescriptor& descriptor();

// A backend whose primitives use `threads` OpenMP threads (0 = every logical processor).
// Throws std::runtime_error when a thread count is asked for and this build cannot set it.
std::unique_ptr<Backend> make_backend(int threads);

// Runs a case made by this backend once more: no clock, no cache eviction.
// For bench/onednn_overhead_bench, which compares a bare loop around this call with
// Case::run_timed. Throws std::invalid_argument for a case from another backend.
void execute_untimed(Case& onednn_case);

}  // namespace lb::onednn
