// The cuDNN legacy descriptors of the memory-bound problems
// (kernels/cuda/cudnn_memory_bound_ops.hpp) for every memory-bound op of the shipped models: host
// objects, so cuDNN checks them here without a driver. What cuDNN reads back must be what the
// harness lays out and validates.
#include <gtest/gtest.h>

#include <string>

#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"

#if LAYERBENCH_HAVE_CUDA
#include <cudnn.h>

#include "kernels/cuda/cudnn_memory_bound_ops.hpp"
#endif

namespace lb {
namespace {

#if !LAYERBENCH_HAVE_CUDA
TEST(CudaMemoryDescriptors, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

using cuda::Layout;

void expect_tensor(cudnnTensorDescriptor_t d, const cuda::logic::TensorSpec& spec,
                   cudnnDataType_t want) {
  cudnnDataType_t type;
  int nb = 0, dims[4] = {}, strides[4] = {};
  ASSERT_EQ(cudnnGetTensorNdDescriptor(d, 4, &type, &nb, dims, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nb, 4);
  EXPECT_EQ(type, want);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(dims[i], spec.dims[i]) << i;
    EXPECT_EQ(strides[i], spec.strides[i]) << i;
  }
}

cudnnDataType_t cudnn_type(Precision p) {
  return p == Precision::fp16   ? CUDNN_DATA_HALF
         : p == Precision::bf16 ? CUDNN_DATA_BFLOAT16
                                : CUDNN_DATA_FLOAT;
}

TEST(CudaMemoryDescriptors, EveryShippedMemoryOpIsAcceptedWithTheHarnessShapes) {
  int checked = 0;
  for (const Model& model : load_builtin_models())
    for (const Op& op : model.ops) {
      const Problem probe = problem_for(op, 1, Pass::fwd, Precision::fp32);
      // Every op cuDNN's legacy API has, ReLU and add included though kernels run them.
      if (!probe.is_memory() || !cuda::logic::cudnn_legacy_has(probe.memory().shape.op)) continue;
      for (Pass pass : {Pass::fwd, Pass::bwd_data})
        for (Precision p : {Precision::fp32, Precision::fp16, Precision::bf16})
          for (Layout layout : {Layout::nhwc, Layout::nchw}) {
            const Problem problem = problem_for(op, 32, pass, p);
            const MemoryShape& s = problem.memory().shape;
            SCOPED_TRACE(model.name + " " + op.id + " " + std::string(name(pass)) + " " +
                         std::string(name(p)) + (layout == Layout::nhwc ? " nhwc" : " nchw"));
            ASSERT_FALSE(cuda::logic::memory_unsupported(problem, 9, 0));
            const cuda::LegacyMemoryDescriptors d(problem, layout);
            const Layout applied = cuda::logic::layout_applies(s.op) ? layout : Layout::nchw;
            const auto dims = tensor_dims(problem);
            for (std::size_t i = 0; i < dims.inputs.size(); ++i) {
              const bool fp32 = cuda::logic::memory_input_type(problem.memory(), i, p) ==
                                cuda::logic::ElementType::f32;
              expect_tensor(d.input(i), cuda::logic::memory_tensor_spec(s, dims.inputs[i], applied),
                            fp32 ? CUDNN_DATA_FLOAT : cudnn_type(p));
            }
            expect_tensor(d.output(), cuda::logic::memory_tensor_spec(s, dims.output, applied),
                          cudnn_type(p));
            if (s.op == MemoryOp::max_pool || s.op == MemoryOp::avg_pool) {
              const auto& pooled = pass == Pass::fwd ? dims.output : dims.inputs.back();
              EXPECT_EQ(d.pooled_dims(),
                        (std::array<std::int64_t, 4>{pooled[0], pooled[1], pooled[2], pooled[3]}));
            }
            EXPECT_EQ(d.pooling() != nullptr,
                      s.op == MemoryOp::max_pool || s.op == MemoryOp::avg_pool);
            EXPECT_EQ(d.activation() != nullptr, s.op == MemoryOp::relu);
            EXPECT_EQ(d.add() != nullptr, s.op == MemoryOp::add);
            ++checked;
          }
    }
  // The distinct cuDNN-legacy ops of the model files: ResNet-50 12 batch norm and 12 ReLU shapes, 4
  // adds, 2 pools; ViT-B/16 and ViT-L/16 a softmax and 2 adds each. Each in 2 passes x 3
  // precisions x 2 layouts.
  EXPECT_EQ(checked, (12 + 12 + 4 + 2 + 2 * (1 + 2)) * 2 * 3 * 2);
}

TEST(CudaMemoryDescriptors, BroadcastAddKeepsBatchOne) {
  MemoryShape s{MemoryOp::add, {4, 197, 768}};
  s.broadcast = true;
  const cuda::LegacyMemoryDescriptors d(Problem{MemoryProblem{s, Pass::fwd}, Precision::fp16},
                                        Layout::nhwc);
  cudnnDataType_t type;
  int nb = 0, dims[4] = {}, strides[4] = {};
  ASSERT_EQ(cudnnGetTensorNdDescriptor(d.input(1), 4, &type, &nb, dims, strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dims[0], 1);
  EXPECT_EQ(dims[1], 197 * 768);
}

#endif

}  // namespace
}  // namespace lb
