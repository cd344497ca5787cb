// The cuDNN and cuBLASLt descriptors of every shipped layer, checked by the libraries without a
// GPU: cuDNN validates tensors, convolution and operation (dims, strides, types, padding) at
// cudnnBackendFinalize, and the cuBLASLt attributes are read back and compared with the data as
// layerbench uploads it. Nothing here needs a device or a driver: no cudnnCreate, no
// cublasLtCreate, no CUDA runtime call.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/api/precision.hpp"
#include "harness/api/problem.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"

#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/cublaslt_descriptors.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_descriptors.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/logic/gemm_layout.hpp"
#endif

namespace lb {
namespace {

#if !LAYERBENCH_HAVE_CUDA
TEST(CudaDescriptors, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

using cuda::Layout;

const std::vector<Model>& shipped() {
  static const std::vector<Model> models = load_builtin_models();
  return models;
}

constexpr int batches[] = {1, 32};
constexpr Layout layouts[] = {Layout::nhwc, Layout::nchw};

// The precisions the convolution path accepts on the newest GPU the rules know: compute
// capability 9.0 (H100/H200, bench/facts/tensor_cores.json). FP8 is refused for convolutions
// anywhere.
std::vector<Precision> conv_precisions() {
  std::vector<Precision> out;
  for (Precision p : all_precisions)
    if (!cuda::logic::precision_unsupported(p, /*is_conv=*/true, 9, 0)) out.push_back(p);
  return out;
}

// Skips the calling test with cuDNN's own message when its graph library cannot create a plain
// tensor descriptor (a sub-library missing or of the wrong version on this machine).
#define REQUIRE_CUDNN_GRAPH()                                                      \
  do {                                                                             \
    cudnnBackendDescriptor_t probe = nullptr;                                      \
    const cudnnStatus_t status =                                                   \
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &probe);     \
    if (status != CUDNN_STATUS_SUCCESS)                                            \
      GTEST_SKIP() << "cuDNN graph API unusable: " << cuda::cudnn_message(status); \
    cudnnBackendDestroyDescriptor(probe);                                          \
  } while (0)

std::string label(const Model& model, const Op& op, int batch, Pass pass, Precision p,
                  Layout layout) {
  return model.name + " " + op.id + " batch " + std::to_string(batch) + " " +
         std::string(name(pass)) + " " + std::string(name(p)) +
         (layout == Layout::nhwc ? " nhwc" : " nchw");
}

// --- cuDNN -------------------------------------------------------------------------------

// cuDNN wants exactly the attribute's element count asked for (1 for a scalar, 4 for our dims).
std::vector<std::int64_t> read_int64s(const cuda::Descriptor& d, cudnnBackendAttributeName_t attr,
                                      std::int64_t wanted) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(wanted));
  std::int64_t count = 0;
  LB_CUDNN(
      cudnnBackendGetAttribute(d.get(), attr, CUDNN_TYPE_INT64, wanted, &count, values.data()));
  values.resize(static_cast<std::size_t>(count));
  return values;
}

cudnnDataType_t read_type(const cuda::Descriptor& d) {
  cudnnDataType_t type{};
  std::int64_t count = 0;
  LB_CUDNN(cudnnBackendGetAttribute(d.get(), CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
                                    &count, &type));
  return type;
}

// Packed strides of logical dims (N,C,H,W) in a layout, written out rather than taken from
// logic::packed_strides so that a mistake there shows here.
std::vector<std::int64_t> expected_strides(const std::vector<std::int64_t>& d, Layout layout) {
  if (layout == Layout::nchw) return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  return {d[1] * d[2] * d[3], 1, d[1] * d[3], d[1]};
}

// The finalized descriptor that holds the tensor with this uid.
const cuda::Descriptor& by_uid(const cuda::ConvDescriptors& d, std::int64_t uid) {
  for (const cuda::Descriptor* t : {&d.x, &d.w, &d.y})
    if (read_int64s(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, 1) == std::vector<std::int64_t>{uid})
      return *t;
  throw std::runtime_error("no tensor with uid " + std::to_string(uid));
}

// Every convolution of every shipped model, in every pass, accepted precision, layout and batch:
// cuDNN finalizes the tensors, the convolution and the operation, and the tensors a pass reads
// and writes have the harness's dimensions (tensor_dims), the layout's strides and the
// precision's type.
TEST(CudaDescriptors, EveryShippedConvolutionFinalizes) {
  REQUIRE_CUDNN_GRAPH();
  int checked = 0, conv_ops = 0;
  for (const Model& model : shipped())
    for (const Op& op : model.ops) {
      if (op.kind != OpKind::conv) continue;
      ++conv_ops;
      for (int batch : batches)
        for (Pass pass : layer_passes)
          for (Precision p : conv_precisions())
            for (Layout layout : layouts) {
              const Problem problem = problem_for(op, batch, pass, p);
              SCOPED_TRACE(label(model, op, batch, pass, p, layout));
              try {
                const cuda::ConvDescriptors d = cuda::conv_descriptors(problem, layout);
                const TensorDims want = tensor_dims(problem);
                const cuda::logic::PassTensors roles = cuda::logic::pass_tensors(d.spec, pass);
                ASSERT_EQ(roles.inputs.size(), want.inputs.size());
                auto check = [&](const cuda::logic::TensorSpec& role,
                                 const std::vector<std::int64_t>& dims) {
                  const cuda::Descriptor& t = by_uid(d, role.uid);
                  EXPECT_EQ(read_int64s(t, CUDNN_ATTR_TENSOR_DIMENSIONS, 4), dims);
                  EXPECT_EQ(read_int64s(t, CUDNN_ATTR_TENSOR_STRIDES, 4),
                            expected_strides(dims, layout));
                  EXPECT_EQ(read_type(t), cuda::cudnn_data_type(cuda::logic::input_type(p)));
                };
                for (std::size_t i = 0; i < want.inputs.size(); ++i)
                  check(*roles.inputs[i], want.inputs[i]);
                check(*roles.output, want.output);
                ++checked;
              } catch (const LibraryError& e) {
                ADD_FAILURE() << e.what();
              }
            }
    }
  EXPECT_GT(conv_ops, 0) << "no convolution in the shipped models";
  EXPECT_EQ(checked, conv_ops * 2 * 3 * static_cast<int>(conv_precisions().size()) * 2);
  EXPECT_EQ(conv_precisions().size(), 4u);  // fp32, tf32, fp16, bf16
}

// The graph of one operation finalizes without a cuDNN handle, which needs a GPU. cuDNN 9.19
// (where CUDNN_ATTR_OPERATIONGRAPH_HANDLE is deprecated) allows that; older releases may not.
TEST(CudaDescriptors, ConvolutionGraphsFinalizeWithoutHandle) {
  REQUIRE_CUDNN_GRAPH();
  if (cudnnGetVersion() < 91900)
    GTEST_SKIP() << "cuDNN " << cudnnGetVersion()
                 << " may need a handle (a GPU) to finalize a graph";
  int checked = 0;
  for (const Model& model : shipped())
    for (const Op& op : model.ops) {
      if (op.kind != OpKind::conv) continue;
      for (Pass pass : layer_passes)
        for (Precision p : conv_precisions())
          for (Layout layout : layouts) {
            SCOPED_TRACE(label(model, op, 32, pass, p, layout));
            try {
              const cuda::ConvDescriptors d =
                  cuda::conv_descriptors(problem_for(op, 32, pass, p), layout);
              const cuda::Descriptor graph = cuda::conv_graph(d.op, nullptr);
              std::int64_t engines = 0, count = 0;
              LB_CUDNN(cudnnBackendGetAttribute(graph.get(),
                                                CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                                CUDNN_TYPE_INT64, 1, &count, &engines));
              EXPECT_GT(engines, 0);
              ++checked;
            } catch (const std::exception& e) {  // LibraryError, or Unsupported from conv_graph
              ADD_FAILURE() << e.what();
            }
          }
    }
  EXPECT_GT(checked, 0);
}

// The check can fail: an output one column short of what the convolution produces is rejected
// when the forward operation is finalized, with cuDNN's reason.
TEST(CudaDescriptors, InconsistentOutputIsRejectedAtFinalize) {
  REQUIRE_CUDNN_GRAPH();
  ConvShape s;
  s.c = 64, s.h = 56, s.w = 56, s.k = 64, s.r = 3, s.s = 3, s.pad_h = 1, s.pad_w = 1;
  cuda::logic::ConvGraphSpec spec = cuda::logic::conv_graph_spec(s, Layout::nhwc);
  EXPECT_NO_THROW(cuda::conv_descriptors(spec, Pass::fwd, cuda::logic::ElementType::f32));
  spec.y.dims[3] -= 1;
  spec.y.strides = cuda::logic::packed_strides(spec.y.dims, Layout::nhwc);
  try {
    cuda::conv_descriptors(spec, Pass::fwd, cuda::logic::ElementType::f32);
    FAIL() << "cuDNN accepted an output of width " << spec.y.dims[3]
           << " for a convolution producing " << s.q();
  } catch (const LibraryError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudnnBackendFinalize"), std::string::npos) << what;
    EXPECT_NE(what.find("CUDNN_STATUS_BAD_PARAM"), std::string::npos) << what;
  }
}

// --- cuBLASLt ----------------------------------------------------------------------------

template <typename T>
T read(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr) {
  T value{};
  std::size_t written = 0;
  LB_CUBLAS(cublasLtMatrixLayoutGetAttribute(layout, attr, &value, sizeof value, &written));
  EXPECT_EQ(written, sizeof value);
  return value;
}

template <typename T>
T read(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  LB_CUBLAS(cublasLtMatmulDescGetAttribute(desc, attr, &value, sizeof value, &written));
  EXPECT_EQ(written, sizeof value);
  return value;
}

// A row-major matrix stored [rows][cols], packed, read column-major: cols x rows, ld = cols.
struct Stored {
  std::int64_t rows, cols;
};

// Compares a layout's attributes with the buffer layerbench uploads for it and with the shape
// cuBLASLt must see after the operation `trans` (op_rows x op_cols). Returns what differs.
std::string layout_mismatch(const char* which, cublasLtMatrixLayout_t layout, Stored stored,
                            std::int64_t batch, cudaDataType_t type, std::int32_t trans,
                            std::int64_t op_rows, std::int64_t op_cols) {
  std::string bad;
  auto expect = [&](const char* what, std::int64_t got, std::int64_t want) {
    if (got != want)
      bad += std::string(" ") + which + "." + what + " " + std::to_string(got) +
             " != " + std::to_string(want);
  };
  const auto rows =
      static_cast<std::int64_t>(read<std::uint64_t>(layout, CUBLASLT_MATRIX_LAYOUT_ROWS));
  const auto cols =
      static_cast<std::int64_t>(read<std::uint64_t>(layout, CUBLASLT_MATRIX_LAYOUT_COLS));
  expect("type", read<std::uint32_t>(layout, CUBLASLT_MATRIX_LAYOUT_TYPE), type);
  expect("order", read<std::int32_t>(layout, CUBLASLT_MATRIX_LAYOUT_ORDER), CUBLASLT_ORDER_COL);
  expect("rows", rows, stored.cols);
  expect("cols", cols, stored.rows);
  expect("ld", read<std::int64_t>(layout, CUBLASLT_MATRIX_LAYOUT_LD), stored.cols);
  expect("batch_count", read<std::int32_t>(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT), batch);
  // Strided batches of packed matrices; a single matrix keeps cuBLASLt's default stride 0.
  expect("batch_stride", read<std::int64_t>(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET),
         batch > 1 ? stored.rows * stored.cols : 0);
  expect("op_rows", trans == CUBLAS_OP_N ? rows : cols, op_rows);
  expect("op_cols", trans == CUBLAS_OP_N ? cols : rows, op_cols);
  return bad;
}

// What differs between cuBLASLt's descriptors and the row-major product C = op(A) . op(B) of
// `s` as uploaded: cuBLASLt computes C^T (N x M) = op(its A = our B) (N x K) . op(its B = our A)
// (K x M), in place in C.
std::string gemm_mismatch(const GemmShape& s, Precision p, const cuda::MatmulDesc& desc,
                          const cuda::LtLayouts& layouts) {
  const cudaDataType_t in = cuda::cuda_data_type(cuda::logic::input_type(p));
  const cudaDataType_t out = cuda::cuda_data_type(cuda::logic::output_type(p));
  const auto trans_a = read<std::int32_t>(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA);
  const auto trans_b = read<std::int32_t>(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB);
  const Stored our_b = s.trans_b ? Stored{s.n, s.k} : Stored{s.k, s.n};
  const Stored our_a = s.trans_a ? Stored{s.k, s.m} : Stored{s.m, s.k};
  return layout_mismatch("A", layouts.a.get(), our_b, s.batch, in, trans_a, s.n, s.k) +
         layout_mismatch("B", layouts.b.get(), our_a, s.batch, in, trans_b, s.k, s.m) +
         layout_mismatch("C", layouts.c.get(), Stored{s.m, s.n}, s.batch, out, CUBLAS_OP_N, s.n,
                         s.m);
}

// Every GEMM of every shipped model (linear and bmm), in every pass, precision and batch: the
// matmul descriptor and layouts are created and set, and read back they describe the product
// as layerbench uploads it. FP8 runs the TN plan with BF16 output and both scale pointers set.
TEST(CudaDescriptors, EveryShippedGemmReadsBackAsUploaded) {
  // Addresses of real floats: setting a scale pointer stores it, nothing reads it here.
  static const float scale_values[2] = {1.0f, 1.0f};
  const cuda::Fp8Scales scales{&scale_values[0], &scale_values[1]};
  int checked = 0, gemm_ops = 0;
  for (const Model& model : shipped())
    for (const Op& op : model.ops) {
      if (op.kind != OpKind::linear && op.kind != OpKind::bmm) continue;
      ++gemm_ops;
      for (int batch : batches)
        for (Pass pass : layer_passes)
          for (Precision p : all_precisions) {
            SCOPED_TRACE(model.name + " " + op.id + " batch " + std::to_string(batch) + " " +
                         std::string(name(pass)) + " " + std::string(name(p)));
            const GemmShape shape = problem_for(op, batch, pass, p).gemm().shape;
            const GemmShape executed =
                p == Precision::fp8 ? cuda::logic::tn_plan(shape).executed : shape;
            const cuda::logic::LtGemm lt = cuda::logic::to_column_major(executed);
            const cublasComputeType_t compute = cuda::preferred_compute_type(p);
            try {
              const cuda::LtLayouts layouts = cuda::matrix_layouts(lt, p);
              const auto desc =
                  cuda::matmul_desc(lt, compute, p == Precision::fp8 ? &scales : nullptr);
              ASSERT_TRUE(desc) << cuda::compute_type_name(compute) << " not offered";
              EXPECT_EQ(gemm_mismatch(executed, p, *desc, layouts), "");
              EXPECT_EQ(read<std::int32_t>(desc->get(), CUBLASLT_MATMUL_DESC_COMPUTE_TYPE),
                        compute);
              EXPECT_EQ(read<std::int32_t>(desc->get(), CUBLASLT_MATMUL_DESC_SCALE_TYPE),
                        CUDA_R_32F);
              const void* a_scale =
                  read<const void*>(desc->get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER);
              const void* b_scale =
                  read<const void*>(desc->get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER);
              if (p == Precision::fp8) {
                // cuBLASLt's FP8 kernels take only the TN form: its A transposed, its B not.
                EXPECT_EQ(read<std::int32_t>(desc->get(), CUBLASLT_MATMUL_DESC_TRANSA),
                          CUBLAS_OP_T);
                EXPECT_EQ(read<std::int32_t>(desc->get(), CUBLASLT_MATMUL_DESC_TRANSB),
                          CUBLAS_OP_N);
                EXPECT_EQ(a_scale, scales.a);
                EXPECT_EQ(b_scale, scales.b);
              } else {
                EXPECT_EQ(a_scale, nullptr);
                EXPECT_EQ(b_scale, nullptr);
              }
              ++checked;
            } catch (const LibraryError& e) {
              ADD_FAILURE() << e.what();
            }
          }
    }
  EXPECT_GT(gemm_ops, 0) << "no GEMM in the shipped models";
  EXPECT_EQ(checked, gemm_ops * 2 * 3 * static_cast<int>(std::size(all_precisions)));
}

// The check can fail: descriptors built for a linear layer's B stored [N][K] do not describe
// B stored [K][N], and without its transpose cuBLASLt's A is not N x K.
TEST(CudaDescriptors, GemmCheckCatchesAWrongTranspose) {
  const Op* linear_op = nullptr;
  for (const Model& model : shipped())
    for (const Op& op : model.ops)
      if (!linear_op && op.kind == OpKind::linear) linear_op = &op;
  ASSERT_NE(linear_op, nullptr) << "no linear layer in the shipped models";
  const GemmShape linear = problem_for(*linear_op, 1, Pass::fwd, Precision::fp32).gemm().shape;
  ASSERT_TRUE(linear.trans_b);
  ASSERT_NE(linear.n, linear.k) << "a square weight would read the same either way";
  const cuda::logic::LtGemm lt = cuda::logic::to_column_major(linear);
  const cuda::LtLayouts layouts = cuda::matrix_layouts(lt, Precision::fp32);
  const auto desc = cuda::matmul_desc(lt, cuda::preferred_compute_type(Precision::fp32), nullptr);
  ASSERT_TRUE(desc);
  EXPECT_EQ(gemm_mismatch(linear, Precision::fp32, *desc, layouts), "");
  GemmShape other = linear;
  other.trans_b = false;
  const std::string bad = gemm_mismatch(other, Precision::fp32, *desc, layouts);
  EXPECT_NE(bad.find("A.rows"), std::string::npos) << bad;
  const std::int32_t no_transpose = CUBLAS_OP_N;
  LB_CUBLAS(cublasLtMatmulDescSetAttribute(desc->get(), CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose,
                                           sizeof no_transpose));
  const std::string untransposed = gemm_mismatch(linear, Precision::fp32, *desc, layouts);
  EXPECT_NE(untransposed.find("A.op_rows"), std::string::npos) << untransposed;
}

// cuBLASLt checks what it can without a GPU: an attribute of the wrong size is refused, so the
// sets above passing means the documented attribute types were used.
TEST(CudaDescriptors, CublasLtRefusesAWronglySizedAttribute) {
  const cuda::logic::LtGemm lt =
      cuda::logic::to_column_major(GemmShape{1, 64, 64, 64, false, false});
  const auto desc = cuda::matmul_desc(lt, CUBLAS_COMPUTE_32F, nullptr);
  ASSERT_TRUE(desc);
  const std::int64_t wide = CUBLAS_OP_T;  // TRANSA is an int32_t
  EXPECT_EQ(
      cublasLtMatmulDescSetAttribute(desc->get(), CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide),
      CUBLAS_STATUS_INVALID_VALUE);
}

#endif

}  // namespace
}  // namespace lb
