// `--cudnn-api legacy`: the pure rules (math type per precision, which reported math types a
// precision accepts, algorithm names, the selection of the heuristic's results) everywhere; the
// legacy descriptors (host objects, no driver needed) for every shipped convolution wherever CUDA
// is built; and real runs validated against the double-precision reference on a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"
#include "kernels/cuda/logic/legacy_conv.hpp"

#if LAYERBENCH_HAVE_CUDA
#include <cudnn.h>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cudnn_legacy_conv.hpp"
#include "tests/unit/backend_case_support.hpp"
#include "tests/unit/cuda_test_support.hpp"
#endif

namespace lb {
namespace {

using cuda::Layout;
using cuda::logic::LegacyAlgoResult;
using cuda::logic::LegacyMathType;

constexpr LegacyMathType all_math_types[] = {
    LegacyMathType::default_math, LegacyMathType::tensor_op,
    LegacyMathType::tensor_op_allow_conversion, LegacyMathType::fma};

TEST(CudaLegacyLogic, DescriptorMathTypePerPrecision) {
  EXPECT_EQ(cuda::logic::legacy_math_type(Precision::fp32), LegacyMathType::fma);
  EXPECT_EQ(cuda::logic::legacy_math_type(Precision::tf32), LegacyMathType::default_math);
  EXPECT_EQ(cuda::logic::legacy_math_type(Precision::fp16), LegacyMathType::tensor_op);
  EXPECT_EQ(cuda::logic::legacy_math_type(Precision::bf16), LegacyMathType::tensor_op);
  EXPECT_FALSE(cuda::logic::legacy_math_type(Precision::fp8));
}

TEST(CudaLegacyLogic, EachPrecisionAcceptsTheMathTypeItAsksFor) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    const auto asked = cuda::logic::legacy_math_type(p);
    ASSERT_TRUE(asked) << name(p);
    EXPECT_FALSE(cuda::logic::legacy_math_rejection(p, *asked)) << name(p);
  }
}

TEST(CudaLegacyLogic, Fp32TakesFmaKernelsOnly) {
  for (LegacyMathType m : all_math_types) {
    const auto why = cuda::logic::legacy_math_rejection(Precision::fp32, m);
    EXPECT_EQ(why.has_value(), m != LegacyMathType::fma) << cuda::logic::name(m);
  }
  const auto why =
      cuda::logic::legacy_math_rejection(Precision::fp32, LegacyMathType::default_math);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("TF32"), std::string::npos) << *why;
}

TEST(CudaLegacyLogic, NoPrecisionTakesTheConversionVariant) {
  for (Precision p : {Precision::tf32, Precision::fp16, Precision::bf16}) {
    EXPECT_TRUE(cuda::logic::legacy_math_rejection(p, LegacyMathType::tensor_op_allow_conversion))
        << name(p);
    for (LegacyMathType m :
         {LegacyMathType::default_math, LegacyMathType::tensor_op, LegacyMathType::fma})
      EXPECT_FALSE(cuda::logic::legacy_math_rejection(p, m))
          << name(p) << " " << cuda::logic::name(m);
  }
  for (LegacyMathType m : all_math_types)
    EXPECT_TRUE(cuda::logic::legacy_math_rejection(Precision::fp8, m));
}

TEST(CudaLegacyLogic, TensorCoreNote) {
  EXPECT_EQ(cuda::logic::tensor_cores_note(LegacyMathType::fma, 9), "no");
  EXPECT_EQ(cuda::logic::tensor_cores_note(LegacyMathType::default_math, 7), "no");
  EXPECT_EQ(cuda::logic::tensor_cores_note(LegacyMathType::default_math, 8), "permitted");
  EXPECT_EQ(cuda::logic::tensor_cores_note(LegacyMathType::tensor_op, 7), "permitted");
}

TEST(CudaLegacyLogic, AlgorithmNames) {
  EXPECT_EQ(cuda::logic::legacy_algo_name(Pass::fwd, 1),
            "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM");
  EXPECT_EQ(cuda::logic::legacy_algo_short_name(Pass::fwd, 1), "IMPLICIT_PRECOMP_GEMM");
  EXPECT_EQ(cuda::logic::legacy_algo_name(Pass::bwd_data, 1), "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1");
  EXPECT_EQ(cuda::logic::legacy_algo_short_name(Pass::bwd_data, 1), "ALGO_1");
  EXPECT_EQ(cuda::logic::legacy_algo_name(Pass::bwd_weights, 6),
            "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING");
  EXPECT_EQ(cuda::logic::legacy_algo_name(Pass::fwd, 8), "CUDNN_CONVOLUTION_FWD_ALGO_UNKNOWN_8");
  EXPECT_EQ(cuda::logic::legacy_algo_short_name(Pass::bwd_weights, -1), "UNKNOWN_-1");
  EXPECT_EQ(cuda::logic::legacy_candidate_label(Pass::fwd, 1, LegacyMathType::tensor_op),
            "IMPLICIT_PRECOMP_GEMM (tensor op math)");
}

LegacyAlgoResult result(int algo, LegacyMathType math, std::uint64_t workspace,
                        std::optional<std::string> failure = std::nullopt) {
  LegacyAlgoResult r;
  r.algo = algo, r.math = math, r.workspace_bytes = workspace, r.failure = std::move(failure);
  return r;
}

TEST(CudaLegacyLogic, SelectionKeepsTheHeuristicOrderAndSaysWhyOthersWereRefused) {
  const std::vector<LegacyAlgoResult> results = {
      result(7, LegacyMathType::fma, 0, "CUDNN_STATUS_NOT_SUPPORTED"),
      result(1, LegacyMathType::tensor_op, 0),  // fp32 refuses Tensor Cores
      result(6, LegacyMathType::fma, 1000),     // over the limit
      result(1, LegacyMathType::fma, 999),      // exactly at the limit: fits
      result(0, LegacyMathType::fma, 0),
      result(2, LegacyMathType::fma, 0),
  };
  const auto all = cuda::logic::select_legacy_algos(Pass::fwd, Precision::fp32, results, 999, 8);
  EXPECT_EQ(all.accepted, (std::vector<std::size_t>{3, 4, 5}));
  EXPECT_EQ(all.rejected, 3);
  EXPECT_EQ(all.first_rejection, "WINOGRAD_NONFUSED (FMA math): CUDNN_STATUS_NOT_SUPPORTED");

  const auto one = cuda::logic::select_legacy_algos(Pass::fwd, Precision::fp32, results, 999, 1);
  EXPECT_EQ(one.accepted, (std::vector<std::size_t>{3}));
  EXPECT_EQ(one.rejected, 3);

  // tf32 takes the Tensor Core result the fp32 selection refused.
  const auto tf32 = cuda::logic::select_legacy_algos(Pass::fwd, Precision::tf32, results, 999, 1);
  EXPECT_EQ(tf32.accepted, (std::vector<std::size_t>{1}));

  const auto tight = cuda::logic::select_legacy_algos(Pass::bwd_data, Precision::fp32,
                                                      {result(1, LegacyMathType::fma, 64)}, 32, 8);
  EXPECT_TRUE(tight.accepted.empty());
  EXPECT_EQ(tight.first_rejection, "ALGO_1 (FMA math): needs 64 bytes of workspace");
}

#if !LAYERBENCH_HAVE_CUDA
TEST(CudaLegacyDescriptors, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

// The mirrored tables name exactly cuDNN's enumerators.
#define EXPECT_ALGO_NAME(pass, enumerator) \
  EXPECT_EQ(cuda::logic::legacy_algo_name(pass, enumerator), #enumerator)

TEST(CudaLegacyDescriptors, AlgorithmNamesMatchCudnnHeaders) {
  EXPECT_EQ(cuda::logic::legacy_algo_count(Pass::fwd), CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_EQ(cuda::logic::legacy_algo_count(Pass::bwd_data), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  EXPECT_EQ(cuda::logic::legacy_algo_count(Pass::bwd_weights),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_FFT);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);
  EXPECT_ALGO_NAME(Pass::fwd, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD);
  EXPECT_ALGO_NAME(Pass::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED);
  EXPECT_ALGO_NAME(Pass::bwd_weights, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING);
}

// What cuDNN reads back from the descriptors must be what the harness computes and lays out.
void expect_descriptors_match(const ConvShape& shape, Precision precision, Layout layout) {
  const cuda::LegacyConvDescriptors d(shape, precision, layout);
  EXPECT_EQ(d.forward_output_dims(),
            (std::array<std::int64_t, 4>{shape.n, shape.k, shape.p(), shape.q()}));

  cudnnDataType_t type;
  int nb = 0, dims[4] = {}, strides[4] = {};
  ASSERT_EQ(cudnnGetTensorNdDescriptor(d.x(), 4, &type, &nb, dims, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nb, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(strides[i], d.spec().x.strides[i]) << i;

  cudnnTensorFormat_t format;
  ASSERT_EQ(cudnnGetFilterNdDescriptor(d.w(), 4, &type, &format, &nb, dims), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(format, layout == Layout::nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW);
  EXPECT_EQ(type, precision == Precision::fp16   ? CUDNN_DATA_HALF
                  : precision == Precision::bf16 ? CUDNN_DATA_BFLOAT16
                                                 : CUDNN_DATA_FLOAT);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(dims[i], d.spec().w.dims[i]) << i;

  int groups = 0;
  cudnnMathType_t math;
  ASSERT_EQ(cudnnGetConvolutionGroupCount(d.conv(), &groups), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetConvolutionMathType(d.conv(), &math), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(groups, shape.groups);
  EXPECT_EQ(static_cast<int>(math), static_cast<int>(*cuda::logic::legacy_math_type(precision)));
}

TEST(CudaLegacyDescriptors, EveryShippedConvolutionHasTheHarnessOutputShape) {
  int checked = 0;
  for (const Model& model : load_builtin_models())
    for (const Op& op : model.ops) {
      if (op.kind != OpKind::conv) continue;
      for (int batch : {1, 32})
        for (Layout layout : {Layout::nhwc, Layout::nchw})
          for (Precision p : {Precision::fp32, Precision::fp16}) {
            SCOPED_TRACE(model.name + " " + op.id + " batch " + std::to_string(batch) +
                         (layout == Layout::nhwc ? " nhwc " : " nchw ") + std::string(name(p)));
            expect_descriptors_match(problem_for(op, batch, Pass::fwd, p).conv().shape, p, layout);
            ++checked;
          }
    }
  // ResNet-50 v1.5 has 23 distinct convolution shapes (bench/models/SCHEMA.md, the shipped models),
  // ViT-B/16 and ViT-L/16 one patch embedding each: every one was checked.
  EXPECT_EQ(checked, (23 + 1 + 1) * 2 * 2 * 2);
}

TEST(CudaLegacyDescriptors, GroupedDilatedAndEveryPrecision) {
  ConvShape s;
  s.n = 2, s.c = 16, s.h = 11, s.w = 9, s.k = 32, s.r = 3, s.s = 3;
  s.stride_h = 2, s.pad_h = 1, s.pad_w = 2, s.dil_w = 2, s.groups = 4;
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
    for (Layout layout : {Layout::nhwc, Layout::nchw}) expect_descriptors_match(s, p, layout);
}

TEST(CudaLegacyDescriptors, Fp8IsUnsupported) {
  ConvShape s;
  s.c = 8, s.h = 8, s.w = 8, s.k = 8, s.r = 3, s.s = 3;
  EXPECT_THROW(cuda::LegacyConvDescriptors(s, Precision::fp8, Layout::nhwc), Unsupported);
}

TEST(CudaLegacyDescriptors, CudnnRefusesInconsistentGroups) {
  ConvShape s;  // 6 channels cannot form 4 groups: the filter says 1 channel per group
  s.c = 6, s.h = 8, s.w = 8, s.k = 4, s.r = 1, s.s = 1, s.groups = 4;
  EXPECT_THROW(cuda::LegacyConvDescriptors(s, Precision::fp32, Layout::nchw).forward_output_dims(),
               LibraryError);
}

using testing::note;

TEST(CudaLegacyConv, ResNetLayerEveryPassValidates) {
  REQUIRE_GPU();
  const std::vector<Model> models = load_builtin_models();  // find_model points into it
  const Model* resnet = find_model(models, "resnet50");
  ASSERT_NE(resnet, nullptr);
  const Op* layer = nullptr;
  for (const Op& op : resnet->ops)
    if (op.id == "conv3x3_128to128_s2_56") layer = &op;
  ASSERT_NE(layer, nullptr);
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
    for (Pass pass : layer_passes)
      for (Layout layout : {Layout::nhwc, Layout::nchw}) {
        cuda::CudaOptions cuda_options;
        cuda_options.cudnn_api = cuda::CudnnApi::legacy;
        cuda_options.layout = layout;
        auto backend = cuda::make_backend(0, cuda_options);
        const Problem problem = problem_for(*layer, 2, pass, p);
        SCOPED_TRACE(std::string(name(p)) + " " + std::string(name(pass)) +
                     (layout == Layout::nhwc ? " nhwc" : " nchw"));
        if (auto why = backend->unsupported_reason(problem)) {
          EXPECT_NE(p, Precision::fp32) << *why;
          continue;
        }
        CaseOptions options;
        options.algo = layout == Layout::nhwc ? AlgoChoice::autotune : AlgoChoice::heuristic;
        testing::CaseOutcome outcome;
        try {
          outcome = testing::prepare_run_validate(*backend, problem, options, 1, 42);
        } catch (const Unsupported& e) {
          EXPECT_NE(p, Precision::fp32)
              << e.what();  // 16-bit cases may lack an algorithm, fp32 never
          continue;
        }
        const auto& [c, v] = outcome;
        EXPECT_EQ(c->library(), "cudnn");
        EXPECT_EQ(c->implementation().rfind("cudnn legacy ", 0), 0u) << c->implementation();
        EXPECT_EQ(note(*c, "cudnn_api"), "legacy");
        EXPECT_NE(note(*c, "cudnn_heuristic_choice"), "<absent>");
        // Autotuning may take the GPU's free memory, as PyTorch's benchmark mode; the note says
        // what the limit was.
        EXPECT_LE(c->workspace_bytes() >> 20, std::stoull(note(*c, "workspace_limit_mib")));
        if (options.algo == AlgoChoice::heuristic)
          EXPECT_LE(c->workspace_bytes(), cuda_options.workspace_limit_bytes);
        if (p == Precision::fp32) {
          EXPECT_EQ(note(*c, "cudnn_math_type"), "CUDNN_FMA_MATH");
          EXPECT_EQ(note(*c, "tensor_cores"), "no");
        }
        EXPECT_TRUE(v.passed) << "rel_l2 " << v.rel_l2 << " tolerance " << v.tolerance << " ("
                              << c->implementation() << ")";
      }
}

#endif

}  // namespace
}  // namespace lb
