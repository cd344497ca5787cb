// The GPU backend's pure logic for the memory-bound problems
// (kernels/cuda/logic/memory_bound_ops.hpp): which route runs each op, which precisions are refused
// and why, the 4-d tensors cuDNN's legacy calls are given, the memory a backward pass adds and the
// kernels' launch shapes. No GPU needed.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"

namespace lb::cuda::logic {
namespace {

Problem memory(MemoryOp op, std::vector<std::int64_t> dims, Pass pass = Pass::fwd,
               Precision precision = Precision::fp32) {
  MemoryShape s{op, std::move(dims)};
  if (op == MemoryOp::max_pool) s.window = 3, s.stride = 2, s.pad = 1;
  return Problem{MemoryProblem{s, pass}, precision};
}

constexpr MemoryOp all_ops[] = {MemoryOp::batch_norm, MemoryOp::layer_norm, MemoryOp::relu,
                                MemoryOp::gelu_erf,   MemoryOp::add,        MemoryOp::max_pool,
                                MemoryOp::avg_pool,   MemoryOp::softmax};

TEST(CudaMemoryOps, CudnnWhereItHasTheOperationKernelsElsewhere) {
  for (MemoryOp op : all_ops) {
    const bool missing = op == MemoryOp::layer_norm || op == MemoryOp::gelu_erf;
    // ReLU and add: cuDNN has them, the vectorised elementwise kernels run them.
    const bool kernel = missing || op == MemoryOp::relu || op == MemoryOp::add;
    EXPECT_EQ(memory_route(op), kernel ? MemoryRoute::kernel : MemoryRoute::cudnn_legacy)
        << name(op);
    EXPECT_EQ(cudnn_legacy_has(op), !missing) << name(op);
  }
  EXPECT_STREQ(name(MemoryRoute::kernel), "layerbench kernel");
}

TEST(CudaMemoryOps, BatchNormInferenceRunsAsAKernelWhereItsChannelsFit) {
  EXPECT_EQ(memory_route(memory(MemoryOp::batch_norm, {8, 256, 56, 56}).memory()),
            MemoryRoute::kernel);
  EXPECT_EQ(memory_route(memory(MemoryOp::batch_norm, {1, 6144, 1, 1}).memory()),
            MemoryRoute::kernel);
  EXPECT_EQ(memory_route(memory(MemoryOp::batch_norm, {1, 6145, 1, 1}).memory()),
            MemoryRoute::cudnn_legacy);
  for (Pass pass : {Pass::fwd_training, Pass::bwd_data})
    EXPECT_EQ(memory_route(memory(MemoryOp::batch_norm, {8, 256, 56, 56}, pass).memory()),
              MemoryRoute::cudnn_legacy);
  // Every other op: as memory_route(op).
  for (MemoryOp op : all_ops)
    if (op != MemoryOp::batch_norm)
      EXPECT_EQ(memory_route(memory(op, {2, 8, 6, 6}).memory()), memory_route(op)) << name(op);
  EXPECT_FALSE(batch_norm_kernel_fits(0));
}

TEST(CudaMemoryOps, PrecisionsRefusedWithTheirReason) {
  for (MemoryOp op : all_ops)
    for (Pass pass : {Pass::fwd, Pass::bwd_data}) {
      const std::vector<std::int64_t> dims{2, 8, 6, 6};
      SCOPED_TRACE(std::string(name(op)) + " " + std::string(name(pass)));
      EXPECT_FALSE(memory_unsupported(memory(op, dims, pass, Precision::fp32), 7, 5));
      EXPECT_FALSE(memory_unsupported(memory(op, dims, pass, Precision::fp16), 7, 5));
      EXPECT_FALSE(memory_unsupported(memory(op, dims, pass, Precision::bf16), 8, 0));
      const auto tf32 = memory_unsupported(memory(op, dims, pass, Precision::tf32), 9, 0);
      ASSERT_TRUE(tf32);
      EXPECT_NE(tf32->find("fp32 only"), std::string::npos) << *tf32;
      const auto fp8 = memory_unsupported(memory(op, dims, pass, Precision::fp8), 9, 0);
      ASSERT_TRUE(fp8);
      EXPECT_NE(fp8->find("cuBLASLt"), std::string::npos) << *fp8;
      const auto bf16 = memory_unsupported(memory(op, dims, pass, Precision::bf16), 7, 5);
      ASSERT_TRUE(bf16);
      EXPECT_NE(bf16->find("compute capability 7.5"), std::string::npos) << *bf16;
    }
}

TEST(CudaMemoryOps, CudnnTensorsMustFitItsIntDimensions) {
  const std::int64_t big = std::int64_t{std::numeric_limits<int>::max()} + 1;
  const auto why = memory_unsupported(memory(MemoryOp::softmax, {big}), 9, 0);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("int dimensions"), std::string::npos) << *why;
  // GELU, ReLU and add run in grid-stride kernels with 64-bit indices: no such limit.
  for (MemoryOp op : {MemoryOp::gelu_erf, MemoryOp::relu, MemoryOp::add})
    EXPECT_FALSE(memory_unsupported(memory(op, {big}), 9, 0)) << name(op);
  // Layer norm launches a block per row.
  EXPECT_TRUE(memory_unsupported(memory(MemoryOp::layer_norm, {big, 2}), 9, 0));
  EXPECT_FALSE(memory_unsupported(memory(MemoryOp::layer_norm, {big / 2, 2}), 9, 0));
}

TEST(CudaMemoryOps, TensorSpecsForCudnn) {
  const MemoryShape bn{MemoryOp::batch_norm, {2, 3, 4, 5}};
  EXPECT_TRUE(layout_applies(MemoryOp::batch_norm));
  EXPECT_TRUE(layout_applies(MemoryOp::avg_pool));
  EXPECT_FALSE(layout_applies(MemoryOp::softmax));
  const TensorSpec x = memory_tensor_spec(bn, {2, 3, 4, 5}, Layout::nhwc);
  EXPECT_EQ(x.dims, (std::array<std::int64_t, 4>{2, 3, 4, 5}));
  EXPECT_EQ(x.strides, (std::array<std::int64_t, 4>{60, 1, 15, 3}));  // channels last
  EXPECT_EQ(memory_tensor_spec(bn, {2, 3, 4, 5}, Layout::nchw).strides,
            (std::array<std::int64_t, 4>{60, 20, 5, 1}));
  const TensorSpec channel = memory_tensor_spec(bn, {3}, Layout::nhwc);
  EXPECT_EQ(channel.dims, (std::array<std::int64_t, 4>{1, 3, 1, 1}));
  EXPECT_THROW(memory_tensor_spec(bn, {2, 3, 4}, Layout::nchw), std::invalid_argument);

  // Softmax: every index but the last is a row, normalised over C by MODE_INSTANCE.
  const MemoryShape softmax{MemoryOp::softmax, {2, 12, 197, 197}};
  EXPECT_EQ(memory_tensor_spec(softmax, softmax.dims, Layout::nhwc).dims,
            (std::array<std::int64_t, 4>{2 * 12 * 197, 197, 1, 1}));
  // Add: the broadcast operand keeps batch 1 and so broadcasts over N.
  MemoryShape add{MemoryOp::add, {8, 197, 768}};
  add.broadcast = true;
  EXPECT_EQ(memory_tensor_spec(add, {1, 197, 768}, Layout::nhwc).dims,
            (std::array<std::int64_t, 4>{1, 197 * 768, 1, 1}));
  EXPECT_EQ(memory_tensor_spec(add, {8, 197, 768}, Layout::nhwc).strides,
            (std::array<std::int64_t, 4>{197 * 768, 1, 1, 1}));
}

TEST(CudaMemoryOps, ParameterVectorsAreFp32) {
  const auto bn_fwd = memory(MemoryOp::batch_norm, {2, 3, 4, 5}).memory();
  EXPECT_EQ(memory_input_type(bn_fwd, 0, Precision::fp16), ElementType::f16);
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(memory_input_type(bn_fwd, i, Precision::fp16), ElementType::f32);
  const auto ln_bwd = memory(MemoryOp::layer_norm, {4, 768}, Pass::bwd_data).memory();
  EXPECT_EQ(memory_input_type(ln_bwd, 1, Precision::bf16), ElementType::bf16);  // dy
  EXPECT_EQ(memory_input_type(ln_bwd, 2, Precision::bf16), ElementType::f32);   // gamma
  const auto add = memory(MemoryOp::add, {4, 768}).memory();
  EXPECT_EQ(memory_input_type(add, 1, Precision::fp16), ElementType::f16);
}

TEST(CudaMemoryOps, RowsOfLayerNormAndSoftmax) {
  const MemoryShape s{MemoryOp::layer_norm, {8, 197, 768}};
  EXPECT_EQ(row_length(s), 768);
  EXPECT_EQ(row_count(s), 8 * 197);
}

TEST(CudaMemoryOps, ExtraBytesOfBackwardPasses) {
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::softmax, {2, 3, 5}, Pass::fwd)), 0u);
  EXPECT_EQ(
      memory_extra_bytes(memory(MemoryOp::softmax, {2, 3, 5}, Pass::bwd_data, Precision::fp16)),
      30u * 2);
  // The ReLU kernel's backward reads x, not a prepared y.
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::relu, {2, 3, 5}, Pass::bwd_data)), 0u);
  // Max pooling 3x3 /2 p1 of 8x8: y is 4x4.
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::max_pool, {1, 2, 8, 8}, Pass::bwd_data)),
            2u * 16 * 4);
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::batch_norm, {2, 64, 4, 4}, Pass::bwd_data)),
            5u * 64 * 4);
  // Mean and inverse deviation per row, the gamma and beta gradients per column.
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::layer_norm, {2, 197, 768}, Pass::bwd_data)),
            2u * (394 + 768) * 4);
  EXPECT_EQ(memory_extra_bytes(memory(MemoryOp::gelu_erf, {2, 3}, Pass::bwd_data)), 0u);
}

TEST(CudaMemoryOps, ColumnReductionCoversEveryRowAndColumn) {
  const ColumnReduction vit = column_reduction_launch(32 * 197, 768);
  EXPECT_EQ(vit.column_blocks, 24u);
  EXPECT_EQ(vit.row_blocks, 25u);  // 6304 rows in chunks of 256
  EXPECT_EQ(vit.rows_per_block, column_block_lanes * 32);
  for (const auto& [rows, length] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 1}, {255, 33}, {256, 32}, {257, 31}, {8 * 197, 768}}) {
    const ColumnReduction l = column_reduction_launch(rows, length);
    EXPECT_GE(l.column_blocks * column_block_width, length);
    EXPECT_LT((l.column_blocks - 1) * column_block_width, length);
    EXPECT_GE(l.row_blocks * l.rows_per_block, rows);
    EXPECT_LT((l.row_blocks - 1) * l.rows_per_block, rows);
  }
  EXPECT_EQ(column_reduction_launch(0, 768).row_blocks, 0u);
  EXPECT_EQ(column_reduction_launch(10, 0).column_blocks, 0u);
}

TEST(CudaMemoryOps, LaunchShapes) {
  const KernelLaunch vit = row_launch(8 * 197, 768);
  EXPECT_EQ(vit.blocks, 8u * 197);
  EXPECT_EQ(vit.threads, 256u);
  EXPECT_EQ(row_launch(3, 40).threads, 64u);  // a multiple of the warp
  EXPECT_EQ(row_launch(3, 1).threads, 32u);
}

TEST(CudaMemoryOps, VectorWidthIsSixteenBytes) {
  EXPECT_EQ(vector_width(4), 4);
  EXPECT_EQ(vector_width(2), 8);
  EXPECT_EQ(vector_width(1), 16);
  EXPECT_THROW(vector_width(0), std::invalid_argument);
  EXPECT_THROW(vector_width(3), std::invalid_argument);
}

TEST(CudaMemoryOps, ElementwiseLaunchCoversEveryVectorOnce) {
  // 1000 FP32: 250 vectors, 1024 a block an iteration (256 threads x 4): one block.
  const VectorLaunch small = elementwise_launch(1000, 4, 132);
  EXPECT_EQ(small.blocks, 1u);
  EXPECT_EQ(small.threads, 256u);
  EXPECT_EQ(small.vectors_per_thread, 4);
  // ResNet-50's 8 x 256 x 56 x 56 BF16 ReLU: 802816 vectors need 784 blocks, under 132 x 8.
  EXPECT_EQ(elementwise_launch(8 * 256 * 56 * 56, 2, 132).blocks, 784u);
  // In FP32 it would need 1568: the grid stops at 8 blocks per SM.
  EXPECT_EQ(elementwise_launch(8 * 256 * 56 * 56, 4, 132).blocks, 132u * 8);
  EXPECT_EQ(elementwise_launch(std::int64_t{1} << 30, 2, 132).blocks, 132u * 8);
  // A tail alone (fewer elements than a vector) still gets a block; nothing gets none.
  EXPECT_EQ(elementwise_launch(3, 2, 132).blocks, 1u);
  EXPECT_EQ(elementwise_launch(0, 2, 132).blocks, 0u);
  for (std::int64_t count : {1, 7, 8, 9, 4095, 4096, 4097, 1 << 20, (1 << 20) + 5})
    for (std::size_t bytes : {2u, 4u}) {
      const VectorLaunch l = elementwise_launch(count, bytes, 4);
      const std::int64_t vectors = count / vector_width(bytes);
      const std::int64_t per_iteration = std::int64_t{l.blocks} * l.threads * l.vectors_per_thread;
      ASSERT_GT(l.blocks, 0u);
      EXPECT_LE(l.blocks, 4u * 8);
      // No block idles for want of vectors when the grid is not capped.
      if (l.blocks < 4u * 8)
        EXPECT_LT((l.blocks - 1) * l.threads * l.vectors_per_thread,
                  std::max<std::int64_t>(vectors, 1));
      EXPECT_GT(per_iteration, 0);
    }
}

TEST(CudaMemoryOps, LayerNormRowPlanHoldsTheRowInRegisters) {
  // ViT's rows of 768: 96 BF16 vectors, one each for 96 threads; 192 FP32 vectors, two each.
  EXPECT_EQ(layer_norm_row_plan(768, 2).threads, 96u);
  EXPECT_EQ(layer_norm_row_plan(768, 2).vectors_per_thread, 1);
  EXPECT_EQ(layer_norm_row_plan(768, 4).threads, 96u);
  EXPECT_EQ(layer_norm_row_plan(768, 4).vectors_per_thread, 2);
  // ViT-L's 1024: 128 BF16 vectors, 256 FP32 (2 each for 128 threads).
  EXPECT_EQ(layer_norm_row_plan(1024, 2).vectors_per_thread, 1);
  EXPECT_EQ(layer_norm_row_plan(1024, 4).threads, 128u);
  // A row of 97 does not split into vectors: strided, with row_launch's threads.
  EXPECT_EQ(layer_norm_row_plan(97, 4).vectors_per_thread, 0);
  EXPECT_EQ(layer_norm_row_plan(97, 4).threads, 128u);
  // Too long for 1024 threads x 8 vectors: strided.
  EXPECT_EQ(layer_norm_row_plan(4 * 8 * 1024 + 4, 4).vectors_per_thread, 0);
  EXPECT_EQ(layer_norm_row_plan(4 * 8 * 1024, 4).threads, 1024u);
  for (std::int64_t length = 4; length <= 40000; length += 4) {
    const RowPlan p = layer_norm_row_plan(length, 4);
    if (p.vectors_per_thread == 0) continue;
    const std::int64_t vectors = length / 4;
    ASSERT_EQ(p.threads % 32, 0u) << length;
    ASSERT_LE(p.threads, 1024u) << length;
    // Every vector has a thread to hold it, and no warp holds none.
    ASSERT_GE(std::int64_t{p.threads} * p.vectors_per_thread, vectors) << length;
    ASSERT_LT(std::int64_t{p.threads - 32} * p.vectors_per_thread, vectors) << length;
  }
}

}  // namespace
}  // namespace lb::cuda::logic
