#pragma once
// How the GPU backend runs the memory-bound problems: which library or kernel, in which
// precisions, what cuDNN's legacy calls are told about each tensor, the device memory beyond the
// problem's own tensors, and the launch shapes of layerbench's kernels. Pure logic, no CUDA.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/element_type.hpp"

namespace lb::cuda::logic {

// cuDNN's legacy calls for batch norm, pooling and softmax. Layer norm and GELU exist in cuDNN 9
// only as graph-API operations (NORM_FORWARD with CUDNN_LAYER_NORM, pointwise GELU_FWD/BWD),
// served by runtime-fusion engines whose support for a standalone operation depends on the GPU
// and the cuDNN build; they run as layerbench's own kernels (memory_bound_kernels.cu) instead, so
// every GPU has them and they are what they say. ReLU and add run as layerbench's vectorised
// elementwise kernels too: cuDNN's legacy ReLU and add reached half PyTorch's bandwidth.
enum class MemoryRoute { cudnn_legacy, kernel };
MemoryRoute memory_route(MemoryOp op);
const char* name(MemoryRoute route);
// The route of a whole problem: memory_route(op), but batch norm inference (Pass::fwd) runs as
// layerbench's per-channel scale-and-shift kernel where its C (scale, shift) pairs fit in shared
// memory (batch_norm_kernel_fits): cuDNN's legacy inference call ran BF16 no faster than FP32.
MemoryRoute memory_route(const MemoryProblem& problem);
inline constexpr std::int64_t batch_norm_kernel_most_channels = 6144;  // 48 KiB of float pairs
bool batch_norm_kernel_fits(std::int64_t channels);

// Whether cuDNN's legacy API has the operation at all (every op but layer norm and GELU), routed
// there or not: the cuDNN case still runs ReLU and add when called directly.
bool cudnn_legacy_has(MemoryOp op);

// Why the GPU backend cannot run a memory-bound problem, or nothing:
//   tf32: TF32 is a Tensor Core mode for matrix products; these operations have none, so they
//         run in fp32 only (tf32 is never silently run as fp32)
//   fp8:  layerbench runs FP8 through cuBLASLt (GEMMs) only
//   bf16: from compute capability 8.0, the first with BF16 arithmetic in hardware
//   cuDNN's legacy calls take int dimensions: no tensor beyond INT_MAX elements; a kernel
//   launches one block per row: no more than INT_MAX rows
std::optional<std::string> memory_unsupported(const Problem& problem, int cc_major, int cc_minor);

// Whether --layout (NHWC or NCHW) decides the memory layout of the op's tensors: the 4-d ones
// (batch norm, pooling). The others are laid out as the harness gives them.
bool layout_applies(MemoryOp op);

// The 4-d tensor cuDNN's legacy calls are told about for a tensor of `dims` (one of tensor_dims'
// of a problem with this shape): a per-channel vector 1 x C x 1 x 1; batch norm and pooling as is
// (N C H W), strides by `layout`; softmax rows x last x 1 x 1 (MODE_INSTANCE normalises each row);
// ReLU, GELU and add first x (the rest) x 1 x 1, so that add's batch-1 operand broadcasts over N.
// Throws std::invalid_argument for a batch norm or pooling tensor that is not 4-d.
TensorSpec memory_tensor_spec(const MemoryShape& shape, const std::vector<std::int64_t>& dims,
                              Layout layout);

// Storage type of input `input` (tensor_dims order): the normalisations' parameter vectors
// (mean, variance, gamma, beta) are FP32 in every precision, as cuDNN's batch norm requires and
// frameworks keep them; data tensors take the precision's type.
ElementType memory_input_type(const MemoryProblem& problem, std::size_t input, Precision precision);

// Rows and row length of a layer norm or softmax (normalised over the last dimension).
std::int64_t row_length(const MemoryShape& shape);
std::int64_t row_count(const MemoryShape& shape);

// Device bytes a backward pass holds beyond its own tensors (memory_bytes): what preparing
// derives from the forward. softmax: y, as x (ReLU's kernel reads x instead); max pooling: y, as
// the pooled output; batch norm: 5 FP32 C-vectors (saved mean and inverse deviation, scale and
// shift gradients, the zero shift forward training takes); layer norm: 2 FP32 per row (mean,
// inverse deviation) and 2 per column (the gamma and beta gradients). Batch norm's training
// forward: the 2 FP32 C-vectors of the batch's statistics it writes. Not counted: cuDNN's batch
// norm workspace and reserve space, known only from a handle (the case's workspace_bytes).
std::uint64_t memory_extra_bytes(const Problem& problem);

struct KernelLaunch {
  unsigned blocks = 0, threads = 0;
};
// One block per row, the threads striding along it: a multiple of the 32-thread warp (the block
// reduction relies on it), up to 256, fewer for short rows.
KernelLaunch row_launch(std::int64_t rows, std::int64_t length);
// Elements of `element_bytes` bytes in one 16-byte vector (4 FP32, 8 FP16 or BF16): the widest
// load and store a thread issues.
int vector_width(std::size_t element_bytes);

// A grid-stride loop over `count` elements in 16-byte vectors, the tail (count % width) in
// scalars: 256 threads a block, each taking elementwise_vectors_per_thread vectors an iteration
// (their loads all in flight before the first store), at most 8 blocks per SM (2048 threads, the
// most any supported GPU keeps resident per SM); one block for a tail alone, none for nothing.
inline constexpr int elementwise_vectors_per_thread = 4;
struct VectorLaunch {
  unsigned blocks = 0, threads = 0;
  int vectors_per_thread = 0;
};
VectorLaunch elementwise_launch(std::int64_t count, std::size_t element_bytes, int sm_count);

// Layer norm with the row in registers: one block per row, each thread holding
// vectors_per_thread 16-byte vectors of it (1, 2, 4 or 8: the fewest that keep the block within
// 128 threads, or within 1024 at 8), so the row is read from memory once. threads is a multiple of
// the warp. vectors_per_thread 0: the row does not split into whole vectors (length % width) or is
// too long for 1024 x 8 vectors, and the kernel strides over it instead (row_launch's threads).
struct RowPlan {
  unsigned threads = 0;
  int vectors_per_thread = 0;
};
RowPlan layer_norm_row_plan(std::int64_t length, std::size_t element_bytes);

// Layer norm's gamma and beta gradients, sums over the rows per column: blocks of 32 columns x 8
// row lanes, each block over rows_per_block rows (32 per lane: enough work per thread to amortise
// a block's atomic adds, while ViT-B/16's 6304 rows of 768 at batch 32 still make 24 x 25 = 600
// blocks); no blocks for no rows or columns.
struct ColumnReduction {
  unsigned column_blocks = 0, row_blocks = 0;
  std::int64_t rows_per_block = 0;
};
inline constexpr std::int64_t column_block_width = 32, column_block_lanes = 8;
ColumnReduction column_reduction_launch(std::int64_t rows, std::int64_t length);

}  // namespace lb::cuda::logic
