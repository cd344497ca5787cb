#pragma once
// oneDNN's primitives for the memory-bound problems: batch and layer normalisation, eltwise
// (relu, gelu_erf), binary add, pooling (max, average) and softmax, forward and backward.
#include "harness/problem.hpp"
#include "kernels/onednn/onednn_operation.hpp"

namespace lb::onednn {

// oneDNN's implementation `impl` (0 = its first choice) for the problem at data type `type`;
// an empty pd when there is none and allow_empty, else oneDNN's error is thrown.
Operation make_memory_op(const MemoryProblem& problem, DataType type, const dnnl::engine& engine,
                         int impl, bool allow_empty);

}  // namespace lb::onednn
