#pragma once
// oneDNN's primitives for the memory-bound problems: batch and layer normalisation, eltwise
// (relu, gelu_erf), binary add, pooling (max, average) and softmax, forward and backward.
#include "harness/api/problem.hpp"
#include "kernels/onednn/onednn_operation.hpp"

#include <string>
#include <vector>

namespace lb::onednn {

// Where a model keeps a memory-bound operation's data tensor of `dims`, so the operation runs
// with no reorder around it: for batch norm, ReLU, GELU, adds and pools on images (4-D), the
// layout oneDNN's convolutions choose on this CPU at `type` for `pass` (an inference forward
// for fwd, a training one otherwise: blocked nChw16c, or nhwc); otherwise row-major, as GEMMs
// leave it.
dnnl::memory::desc model_layout(MemoryOp op, const std::vector<std::int64_t>& dims, DataType type,
                                Pass pass, const dnnl::engine& engine);

// A layout's short name: 4-D tensors with n, c, h, w from outermost to innermost, a blocked
// dimension in capitals and its block size after ("nChw16c", "nhwc", "nchw"); other ranks
// "row-major", or letters a, b, c... when permuted.
std::string layout_name(const dnnl::memory::desc& d);

// oneDNN's implementation `impl` (0 = its first choice) for the problem at data type `type`;
// an empty pd when there is none and allow_empty, else oneDNN's error is thrown.
Operation make_memory_op(const MemoryProblem& problem, DataType type, const dnnl::engine& engine,
                         int impl, bool allow_empty);

}  // namespace lb::onednn
