// The GPU backend (cuDNN + cuBLASLt) on a real GPU. Without a usable GPU the device tests skip
// with the CUDA runtime's reason; the host-side type conversions are tested everywhere CUDA is
// built.
#include <gtest/gtest.h>

#include <string>

#include "harness/api/backend.hpp"
#include "harness/api/precision.hpp"
#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"

#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"
#include "kernels/cuda/logic/telemetry.hpp"
#include "tests/unit/backend_case_support.hpp"
#include "tests/unit/cuda_test_support.hpp"
#endif

namespace lb {
namespace {

#if !LAYERBENCH_HAVE_CUDA
TEST(CudaBackend, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

TEST(CudaDeviceTypes, RoundedValuesConvertExactly) {
  const std::vector<float> raw{0.0f, 1.0f, -0.3f, 3.14159f, 1e-3f, -250.0f, 0.0625f, 448.0f};
  for (Precision p : all_precisions) {
    std::vector<float> rounded;
    for (float v : raw) rounded.push_back(round_to_storage(p, v));
    const auto type = cuda::logic::input_type(p);
    const auto bytes = cuda::encode(rounded, type);
    EXPECT_EQ(bytes.size(), rounded.size() * cuda::logic::element_bytes(type));
    EXPECT_EQ(cuda::decode(bytes, type), rounded) << name(p);
  }
  // The device types really are 16 and 8 bits: an unrounded value does not survive.
  EXPECT_NE(cuda::decode(cuda::encode({0.3f}, cuda::logic::ElementType::f16),
                         cuda::logic::ElementType::f16)[0],
            0.3f);
  EXPECT_EQ(cuda::decode(cuda::encode({0.3f}, cuda::logic::ElementType::e4m3),
                         cuda::logic::ElementType::e4m3)[0],
            0.3125f);
}

using cuda::Layout;
using testing::note;

// A failed call whose result is only a fact left out (a clock, the PCI bus id) must not leave its
// error for the next cudaGetLastError(), which the launch check reads as its own.
TEST(CudaCheck, AFailedUncheckedCallLeavesNoErrorBehind) {
  REQUIRE_GPU();  // without a driver the runtime's start-up error stays whatever is cleared
  int value = 0;
  EXPECT_FALSE(
      cuda::succeeded_or_cleared(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, -1)));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  char bus_id[32] = {};
  EXPECT_FALSE(cuda::succeeded_or_cleared(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, -1)));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(CudaBackend, ContextNamesDeviceAndLibraries) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_EQ(backend->device(), "gpu:0");
  // context() returns by value: one copy, so begin() and end() belong to the same vector.
  const auto context = backend->context();
  const std::map<std::string, std::string> facts(context.begin(), context.end());
  for (const char* key :
       {"cuda_driver", "gpu_name", "compute_capability", "sm_count", "memory_bytes", "l2_bytes"})
    EXPECT_TRUE(facts.count(key)) << key;
  // The libraries' versions are the context's "libraries" (the descriptor's), never repeated here.
  for (const char* key : {"cuda_runtime", "cudnn", "cublaslt", "cublas"})
    EXPECT_FALSE(facts.count(key)) << key;
}

TEST(CudaBackend, RejectsAMissingDevice) {
  REQUIRE_GPU();
  EXPECT_THROW(cuda::make_backend(1000), LibraryError);
}

TEST(CudaBackend, GemmsInEveryPrecisionAndTranspose) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  for (Precision p : all_precisions)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Problem problem{GemmProblem{GemmShape{3, 48, 32, 64, ta, tb}}, p};
        SCOPED_TRACE(std::string(name(p)) + " " + describe(problem));
        if (auto why = backend->unsupported_reason(problem)) {
          EXPECT_EQ(p, Precision::fp8)
              << *why;  // only FP8 may be missing (compute capability < 8.9)
          continue;
        }
        const auto [c, v] = testing::prepare_run_validate(*backend, problem, {}, 1, 1);
        EXPECT_EQ(c->library(), "cublaslt");
        EXPECT_EQ(c->output().dims, (std::vector<std::int64_t>{3, 48, 32}));
        EXPECT_TRUE(v.passed) << "rel_l2 " << v.rel_l2 << " tolerance " << v.tolerance;
        EXPECT_NE(note(*c, "cublaslt_heuristic_choice"), "<absent>");
        const std::string compute = note(*c, "cublas_compute_type");
        // fp32 as PyTorch asks it without TF32: plain COMPUTE_32F, not PEDANTIC.
        EXPECT_EQ(compute,
                  p == Precision::tf32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F");
        EXPECT_EQ(note(*c, "fp8_fast_accum"), p == Precision::fp8 ? "off" : "<absent>");
      }
}

TEST(CudaBackend, Fp8GemmNeedsAlignedShapes) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  Problem problem{GemmProblem{GemmShape{12, 197, 197, 64, false, true}}, Precision::fp8};
  const auto why = backend->unsupported_reason(problem);
  ASSERT_TRUE(why);
  EXPECT_THROW(backend->prepare(problem, make_inputs(problem, 3), CaseOptions{}), Unsupported);
}

TEST(CudaBackend, ConvolutionPassesLayoutsAndPrecisions) {
  REQUIRE_GPU();
  ConvShape s;
  s.n = 2, s.c = 16, s.h = 11, s.w = 9, s.k = 32, s.r = 3, s.s = 3;
  s.stride_h = 2, s.stride_w = 1, s.pad_h = 1, s.pad_w = 1;
  ConvShape grouped = s;
  grouped.groups = 2, grouped.dil_w = 2, grouped.stride_h = 1;
  for (const ConvShape& shape : {s, grouped})
    for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
      for (Pass pass : layer_passes)
        for (Layout layout : {Layout::nhwc, Layout::nchw}) {
          cuda::CudaOptions cuda_options;
          cuda_options.layout = layout;
          auto backend = cuda::make_backend(0, cuda_options);
          Problem problem{ConvProblem{shape, pass}, p};
          SCOPED_TRACE(std::string(name(p)) + " " + std::string(name(pass)) + " " +
                       describe(problem) + (layout == Layout::nhwc ? " nhwc" : " nchw"));
          if (auto why = backend->unsupported_reason(problem)) {
            EXPECT_NE(p, Precision::fp32) << *why;
            continue;
          }
          testing::CaseOutcome outcome;
          try {
            outcome = testing::prepare_run_validate(*backend, problem, {}, 1, 2);
          } catch (const Unsupported& e) {
            // cuDNN has no engine for some grouped/dilated 16-bit cases: fine, but never for fp32.
            EXPECT_NE(p, Precision::fp32) << e.what();
            continue;
          }
          const auto& [c, v] = outcome;
          EXPECT_EQ(c->library(), "cudnn");
          EXPECT_TRUE(v.passed) << "rel_l2 " << v.rel_l2 << " tolerance " << v.tolerance;
          if (p == Precision::fp32) {
            EXPECT_EQ(note(*c, "tensor_cores"), "no");
          }
          EXPECT_NE(note(*c, "cudnn_heuristic_choice"), "<absent>");
        }
}

// Validation cannot tell TF32 from FP32 results, so the engine's own note must: an autotuned tf32
// convolution of a ResNet-50 layer runs on Tensor Cores, and its output, poisoned again after
// autotuning, still validates (the winner wrote every element).
TEST(CudaBackend, Tf32ConvolutionRunsOnTensorCores) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  ConvShape s;  // ResNet-50 conv2_x 3x3, batch 2
  s.n = 2, s.c = 64, s.h = 56, s.w = 56, s.k = 64, s.r = 3, s.s = 3, s.pad_h = 1, s.pad_w = 1;
  const Problem problem{ConvProblem{s, Pass::fwd}, Precision::tf32};
  if (auto why = backend->unsupported_reason(problem)) GTEST_SKIP() << *why;  // before cc 8.0
  const auto [c, v] = testing::prepare_run_validate(*backend, problem, {}, 1, 4);
  EXPECT_EQ(note(*c, "tensor_cores"), "yes") << note(*c, "cudnn_autotune");
  EXPECT_TRUE(v.passed) << "rel_l2 " << v.rel_l2 << " tolerance " << v.tolerance;
}

// A later round names the first round's choice: every CUDA case prepares it alone, without
// timing the candidates again, and a name no longer offered is unsupported.
TEST(CudaBackend, NamedImplementationIsReusedWithoutAutotuning) {
  REQUIRE_GPU();
  ConvShape s;
  s.n = 2, s.c = 32, s.h = 28, s.w = 28, s.k = 32, s.r = 3, s.s = 3, s.pad_h = 1, s.pad_w = 1;
  GemmShape g;
  g.m = 256, g.n = 256, g.k = 256;
  const Problem conv{ConvProblem{s, Pass::fwd}, Precision::fp16};
  const Problem gemm{GemmProblem{g}, Precision::fp16};
  for (const cuda::CudnnApi api : {cuda::CudnnApi::graph, cuda::CudnnApi::legacy})
    for (const Problem& problem : {conv, gemm}) {
      cuda::CudaOptions cuda_options;
      cuda_options.cudnn_api = api;
      auto backend = cuda::make_backend(0, cuda_options);
      SCOPED_TRACE(describe(problem));
      const auto in = make_inputs(problem, 4);
      const auto first = backend->prepare(problem, in, CaseOptions{});
      CaseOptions named;
      named.implementation = first->implementation();
      const auto again = backend->prepare(problem, in, named);
      EXPECT_EQ(again->implementation(), first->implementation());
      EXPECT_EQ(note(*again, "algo_choice"), "named");
      EXPECT_EQ(note(*again, "cudnn_autotune"), "<absent>");
      EXPECT_EQ(note(*again, "cublaslt_autotune"), "<absent>");
      again->run_timed();
      EXPECT_TRUE(validate(problem, in, again->output(), problem.precision).passed);
      named.implementation = "no such implementation";
      EXPECT_THROW(backend->prepare(problem, in, named), Unsupported);
    }
}

TEST(CudaBackend, Fp8ConvolutionIsUnsupportedWithAReason) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  ConvShape s;
  s.c = 8, s.h = 8, s.w = 8, s.k = 8, s.r = 3, s.s = 3, s.pad_h = 1, s.pad_w = 1;
  const auto why = backend->unsupported_reason(Problem{ConvProblem{s, Pass::fwd}, Precision::fp8});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("cuBLASLt"), std::string::npos);
}

TEST(CudaBackend, MemoryLimitRefusesAPointThatDoesNotFit) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  Problem problem{GemmProblem{GemmShape{1, 1024, 1024, 1024, false, false}}, Precision::fp32};
  CaseOptions options;
  options.memory_limit_bytes = 8ull
                               << 20;  // 12 MiB of operands + 32 MiB workspace cannot fit in 8 MiB
  try {
    backend->prepare(problem, make_inputs(problem, 3), options);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_GT(e.needed_bytes, e.available_bytes);
    EXPECT_LE(e.available_bytes, options.memory_limit_bytes);
  }
}

TEST(CudaBackend, ClockNotesAreRecorded) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  Problem problem{GemmProblem{GemmShape{1, 256, 256, 256, false, true}}, Precision::fp16};
  auto c = backend->prepare(problem, make_inputs(problem, 3), CaseOptions{});
  for (int i = 0; i < 3; ++i) c->run_timed();
  const std::string after = note(*c, "sm_clock_mhz_after");
  if (after == "<absent>") {
    EXPECT_NE(note(*c, "clock").find("NVML not available"), std::string::npos);
  } else {
    EXPECT_NE(note(*c, "sm_clock_mhz_before"), "<absent>");
    EXPECT_NE(note(*c, "sm_clock_default_mhz"), "<absent>");
  }
}

// NVML is read between samples, not around each, and the energy comes from the load window
// after them: every sample counts, and the power is a plausible reading of the load (above the
// board's idle power, which logic::load_power checks) over a window long enough for it.
TEST(CudaBackend, TelemetryEnergyComesFromTheLoadWindow) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  Problem problem{GemmProblem{GemmShape{1, 4096, 4096, 4096, false, true}}, Precision::fp16};
  CaseOptions options;
  options.cache = CacheMode::warm;
  auto c = backend->prepare(problem, make_inputs(problem, 3), options);
  for (int i = 0; i < 3; ++i) c->run_timed();
  c->begin_samples("telemetry_test");
  for (int i = 0; i < 200; ++i) c->run_timed();
  c->end_samples();
  const auto t = c->telemetry();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->samples, 200);
  if (!t->energy_j) {
    EXPECT_TRUE(t->absent.count("energy")) << "no energy and no reason";
    return;
  }
  EXPECT_GT(*t->energy_j / t->window_s, 0);
  if (t->energy_method == "energy_counter")
    EXPECT_GE(t->window_s, cuda::logic::load_min_span_s);
  else
    EXPECT_EQ(t->energy_method, "power_readings");
}

// cuBLASLt and cuDNN launches are asynchronous: the stream hold must stay on for both (were a
// launch to block the host, holding would stop and the times would include launch latency).
TEST(CudaBackend, LaunchHoldKeepsEnqueueLatencyOut) {
  REQUIRE_GPU();
  auto backend = cuda::make_backend(0);
  for (const bool conv : {false, true}) {
    const Problem problem =
        conv ? Problem{ConvProblem{ConvShape{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1}, Pass::fwd},
                       Precision::fp16}
             : Problem{GemmProblem{GemmShape{1, 256, 256, 256, false, true}}, Precision::fp16};
    CaseOptions options;
    options.cache = CacheMode::warm;
    auto c = backend->prepare(problem, make_inputs(problem, 3), options);
    for (int i = 0; i < 20; ++i) c->run_timed();
    const std::string hold = note(*c, "launch_hold");
    EXPECT_EQ(hold.rfind("on:", 0), 0u) << describe(problem) << ": " << hold;
    EXPECT_NE(note(*c, "launch_hold_unclean_runs"), "<absent>");
    EXPECT_NE(note(*c, "host_enqueue_us"), "<absent>");
  }
}

// Every memory-bound op in both passes, the three precisions they run in and both layouts where
// the layout applies, validated against the double-precision reference. tf32 and fp8 are refused.
// ResNet-50's stem max pool (3x3, stride 2, pad 1) backward in 16-bit: rounded inputs tie for a
// window's maximum often enough that a scan-order-only reference would fail cuDNN, which gives a
// tied window's gradient to any one of its maxima.
TEST(CudaBackend, MaxPoolBackwardValidatesDespiteTiedMaxima) {
  REQUIRE_GPU();
  MemoryShape s{MemoryOp::max_pool, {4, 64, 112, 112}};
  s.window = 3, s.stride = 2, s.pad = 1;
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    SCOPED_TRACE(name(p));
    auto backend = cuda::make_backend(0);
    const Problem problem{MemoryProblem{s, Pass::bwd_data}, p};
    if (auto why = backend->unsupported_reason(problem)) {
      EXPECT_EQ(p, Precision::bf16) << *why;
      continue;
    }
    const auto [c, v] = testing::prepare_run_validate(*backend, problem, {}, 1, 5);
    EXPECT_TRUE(v.passed) << c->implementation() << ": rel_l2 " << v.rel_l2;
  }
}

TEST(CudaBackend, MemoryBoundOpsValidateInEveryPassAndPrecision) {
  REQUIRE_GPU();
  auto pool = [](MemoryOp op, std::vector<std::int64_t> dims, std::int64_t window,
                 std::int64_t stride, std::int64_t pad) {
    MemoryShape s{op, std::move(dims)};
    s.window = window, s.stride = stride, s.pad = pad;
    return s;
  };
  MemoryShape broadcast_add{MemoryOp::add, {3, 5, 24}};
  MemoryShape broadcast_vectors{MemoryOp::add, {4, 5, 24}},
      broadcast_scalars{MemoryOp::add, {4, 5, 25}};
  broadcast_add.broadcast = broadcast_vectors.broadcast = broadcast_scalars.broadcast = true;
  // In place as ResNet-50 runs them (a += b, ReLU over its input): met here, not first in a
  // suite.
  MemoryShape relu_in_place{MemoryOp::relu, {2, 3, 10, 7}},
      add_in_place{MemoryOp::add, {2, 3, 10, 7}};
  relu_in_place.in_place = add_in_place.in_place = true;
  const std::vector<MemoryShape> shapes{{MemoryOp::batch_norm, {3, 16, 7, 5}},
                                        {MemoryOp::batch_norm, {4, 64, 14, 14}},
                                        // Inference kernel: C = 6 splits NHWC vectors.
                                        {MemoryOp::batch_norm, {2, 6, 4, 4}},
                                        {MemoryOp::layer_norm, {2, 5, 96}},
                                        // Rows of 97: unaligned 16-byte vectors, scalar loads.
                                        {MemoryOp::layer_norm, {3, 7, 97}},
                                        {MemoryOp::gelu_erf, {3, 7, 97}},
                                        {MemoryOp::relu, {2, 3, 10, 7}},
                                        {MemoryOp::gelu_erf, {2, 5, 96}},
                                        {MemoryOp::add, {2, 3, 10, 7}},
                                        broadcast_add,
                                        // Vectors with a tail; a broadcast period of 120 BF16
                                        // (15 vectors) and of 5 x 25 (splits the vectors).
                                        {MemoryOp::relu, {3, 1000, 1, 3}},
                                        {MemoryOp::gelu_erf, {2, 4, 1001}},
                                        broadcast_vectors,
                                        broadcast_scalars,
                                        // Layer norm in registers: 1, 2, 4 and 8 vectors a thread
                                        // in FP32 and in 16-bit, and a row too long for them.
                                        {MemoryOp::layer_norm, {3, 1024}},
                                        {MemoryOp::layer_norm, {3, 2048}},
                                        {MemoryOp::layer_norm, {2, 4096}},
                                        {MemoryOp::layer_norm, {2, 3, 33000}},
                                        relu_in_place,
                                        add_in_place,
                                        pool(MemoryOp::max_pool, {2, 4, 9, 9}, 3, 2, 1),
                                        pool(MemoryOp::avg_pool, {2, 4, 7, 7}, 7, 1, 0),
                                        pool(MemoryOp::avg_pool, {2, 4, 9, 9}, 3, 2, 1),
                                        {MemoryOp::softmax, {2, 3, 5, 17}}};
  for (const MemoryShape& shape : shapes)
    for (Pass pass : {Pass::fwd, Pass::fwd_training, Pass::bwd_data})
      for (Precision p : all_precisions)
        for (Layout layout : {Layout::nhwc, Layout::nchw}) {
          if (pass == Pass::fwd_training && shape.op != MemoryOp::batch_norm) continue;
          if (layout == Layout::nchw && !cuda::logic::layout_applies(shape.op))
            continue;  // one layout
          cuda::CudaOptions cuda_options;
          cuda_options.layout = layout;
          auto backend = cuda::make_backend(0, cuda_options);
          const Problem problem{MemoryProblem{shape, pass}, p};
          SCOPED_TRACE(std::string(name(p)) + " " + std::string(name(pass)) + " " +
                       describe(problem) + (layout == Layout::nhwc ? " nhwc" : " nchw"));
          if (auto why = backend->unsupported_reason(problem)) {
            EXPECT_TRUE(p == Precision::tf32 || p == Precision::fp8 || p == Precision::bf16)
                << *why;
            continue;
          }
          ASSERT_TRUE(p != Precision::tf32 && p != Precision::fp8);
          testing::CaseOutcome outcome;
          try {
            outcome = testing::prepare_run_validate(*backend, problem, {}, 1, 4);
          } catch (const Unsupported& e) {
            EXPECT_NE(p, Precision::fp32) << e.what();  // cuDNN may lack a 16-bit case, never fp32
            continue;
          }
          const auto& [c, v] = outcome;
          const auto route = cuda::logic::memory_route(problem.memory());
          EXPECT_EQ(c->library(), route == cuda::logic::MemoryRoute::kernel ? "cuda" : "cudnn");
          EXPECT_EQ(note(*c, "route"), cuda::logic::name(route));
          EXPECT_EQ(c->output().dims, tensor_dims(problem).output);
          EXPECT_TRUE(v.passed) << c->implementation() << ": rel_l2 " << v.rel_l2 << " tolerance "
                                << v.tolerance;
          const bool derives = pass == Pass::bwd_data && shape.op != MemoryOp::add &&
                               shape.op != MemoryOp::gelu_erf && shape.op != MemoryOp::relu &&
                               shape.op != MemoryOp::avg_pool;
          EXPECT_EQ(note(*c, "prepared") != "<absent>", derives);
          EXPECT_EQ(note(*c, "in_place") != "<absent>", runs_in_place(problem.memory()));
          // As PyTorch: the persistent kernels for channels-last training and its backward.
          if (shape.op == MemoryOp::batch_norm && pass != Pass::fwd)
            EXPECT_EQ(note(*c, "cudnn_batch_norm_mode"),
                      layout == Layout::nhwc ? "spatial persistent" : "spatial");
        }
}

#endif

}  // namespace
}  // namespace lb
