// The GPU backend's pure logic: cuBLASLt layout mapping, cuDNN descriptor parameters, engine
// filtering, precision support by compute capability, memory budget and clock notes.
#include <gtest/gtest.h>

#include <numeric>

#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/logic/engine_policy.hpp"
#include "kernels/cuda/logic/gemm_layout.hpp"
#include "kernels/cuda/logic/launch_hold.hpp"

namespace lb::cuda::logic {
namespace {

// A tiny column-major strided-batched GEMM with cuBLAS semantics: D = op(A) . op(B), where A and
// B are read exactly as cuBLASLt would read them from the descriptors.
std::vector<double> column_major_gemm(const LtGemm& g, const std::vector<float>& a,
                                      const std::vector<float>& b) {
  std::vector<double> d(static_cast<std::size_t>(g.batch * g.c.batch_stride), 0.0);
  for (std::int64_t p = 0; p < g.batch; ++p)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (std::int64_t l = 0; l < g.k; ++l) {
          // op(A)(i,l) and op(B)(l,j), column-major element (r,c) at r + c*ld.
          const std::int64_t ai = g.trans_a == Transpose::n ? i + l * g.a.ld : l + i * g.a.ld;
          const std::int64_t bi = g.trans_b == Transpose::n ? l + j * g.b.ld : j + l * g.b.ld;
          sum += double(a[p * g.a.batch_stride + ai]) * b[p * g.b.batch_stride + bi];
        }
        d[p * g.c.batch_stride + i + j * g.c.ld] = sum;
      }
  return d;
}

// The row-major product straight from the definition in harness/api/problem.hpp.
std::vector<double> row_major_gemm(const GemmShape& s, const std::vector<float>& a,
                                   const std::vector<float>& b) {
  std::vector<double> c(static_cast<std::size_t>(s.batch * s.m * s.n), 0.0);
  for (std::int64_t p = 0; p < s.batch; ++p)
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (std::int64_t l = 0; l < s.k; ++l) {
          const float av =
              s.trans_a ? a[p * s.m * s.k + l * s.m + i] : a[p * s.m * s.k + i * s.k + l];
          const float bv =
              s.trans_b ? b[p * s.k * s.n + j * s.k + l] : b[p * s.k * s.n + l * s.n + j];
          sum += double(av) * bv;
        }
        c[p * s.m * s.n + i * s.n + j] = sum;
      }
  return c;
}

std::vector<float> ramp(std::int64_t n, float scale) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = float((i * 7 + 3) % 11) - 5.0f + scale;
  return v;
}

class CudaGemmLayoutAllTransposes : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(CudaGemmLayoutAllTransposes, ColumnMajorProductEqualsRowMajorProduct) {
  GemmShape s;
  s.batch = 2, s.m = 3, s.n = 5, s.k = 4;
  std::tie(s.trans_a, s.trans_b) = GetParam();
  const auto a = ramp(s.batch * s.m * s.k, 0.25f), b = ramp(s.batch * s.k * s.n, -0.5f);
  const LtGemm g = to_column_major(s);
  EXPECT_EQ(g.m, s.n);
  EXPECT_EQ(g.n, s.m);
  EXPECT_EQ(g.k, s.k);
  // cuBLASLt's A is our B, its B is our A; the output N x M column-major is our M x N row-major.
  EXPECT_EQ(column_major_gemm(g, b, a), row_major_gemm(s, a, b));
  // Every stored element lies inside its matrix: rows <= ld and the batch stride covers it.
  for (const LtMatrix* mat : {&g.a, &g.b, &g.c}) {
    EXPECT_LE(mat->rows, mat->ld);
    EXPECT_EQ(mat->batch_stride, mat->ld * mat->cols);
  }
}

INSTANTIATE_TEST_SUITE_P(Trans, CudaGemmLayoutAllTransposes,
                         ::testing::Values(std::pair{false, false}, std::pair{false, true},
                                           std::pair{true, false}, std::pair{true, true}));

TEST(CudaGemmLayout, LinearLayerIsTnForCublasLt) {
  // y = x . W^T (trans_b) is cuBLASLt's TN form: its A (our W) transposed, its B (x) not.
  GemmShape linear{1, 394, 3072, 768, false, true};
  const LtGemm g = to_column_major(linear);
  EXPECT_EQ(g.trans_a, Transpose::t);
  EXPECT_EQ(g.trans_b, Transpose::n);
  EXPECT_EQ(g.a.ld, 768);
  EXPECT_EQ(g.b.ld, 768);
  EXPECT_EQ(g.c.ld, 3072);
}

TEST(CudaGemmLayout, TnPlanTransposesOnlyWhatIsNeeded) {
  auto plan = tn_plan({1, 8, 16, 32, false, true});
  EXPECT_FALSE(plan.transpose_a);
  EXPECT_FALSE(plan.transpose_b);
  plan = tn_plan({1, 8, 16, 32, true, false});
  EXPECT_TRUE(plan.transpose_a);
  EXPECT_TRUE(plan.transpose_b);
  EXPECT_FALSE(plan.executed.trans_a);
  EXPECT_TRUE(plan.executed.trans_b);
  const LtGemm g = to_column_major(plan.executed);
  EXPECT_EQ(g.trans_a, Transpose::t);
  EXPECT_EQ(g.trans_b, Transpose::n);
}

TEST(CudaGemmLayout, TnPlanWithHostTransposesComputesTheSameProduct) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      GemmShape s{2, 3, 5, 4, ta, tb};
      auto a = ramp(s.batch * s.m * s.k, 0.5f), b = ramp(s.batch * s.k * s.n, 1.0f);
      const auto expected = row_major_gemm(s, a, b);
      const TnPlan plan = tn_plan(s);
      std::vector<float> a2 = a, b2 = b;
      if (plan.transpose_a) transpose_batched(a.data(), a2.data(), s.batch, s.k, s.m);
      if (plan.transpose_b) transpose_batched(b.data(), b2.data(), s.batch, s.k, s.n);
      EXPECT_EQ(row_major_gemm(plan.executed, a2, b2), expected) << "trans " << ta << tb;
    }
}

TEST(CudaGemmLayout, Fp8AlignmentNamesTheBadDimension) {
  EXPECT_FALSE(fp8_alignment_problem({1, 197, 768, 768, false, true}));  // M may be anything
  const auto qk = fp8_alignment_problem({12, 197, 197, 64, false, true});
  ASSERT_TRUE(qk);
  EXPECT_NE(qk->find("N = 197"), std::string::npos);
  EXPECT_EQ(qk->find("K ="), std::string::npos);
  const auto av = fp8_alignment_problem({12, 197, 64, 197, false, false});
  ASSERT_TRUE(av);
  EXPECT_NE(av->find("K = 197"), std::string::npos);
}

TEST(CudaConvGraph, NhwcAndNchwStrides) {
  const std::array<std::int64_t, 4> d{2, 3, 4, 5};
  EXPECT_EQ(packed_strides(d, Layout::nchw), (std::array<std::int64_t, 4>{60, 20, 5, 1}));
  EXPECT_EQ(packed_strides(d, Layout::nhwc), (std::array<std::int64_t, 4>{60, 1, 15, 3}));
}

TEST(CudaConvGraph, SpecForAGroupedStridedConvolution) {
  ConvShape s;
  s.n = 2, s.c = 8, s.h = 9, s.w = 7, s.k = 4, s.r = 3, s.s = 3;
  s.stride_h = 2, s.stride_w = 1, s.pad_h = 1, s.pad_w = 0, s.dil_h = 1, s.dil_w = 2, s.groups = 2;
  const auto g = conv_graph_spec(s, Layout::nhwc);
  EXPECT_EQ(g.x.dims, (std::array<std::int64_t, 4>{2, 8, 9, 7}));
  EXPECT_EQ(g.w.dims, (std::array<std::int64_t, 4>{4, 4, 3, 3}));  // C/groups
  EXPECT_EQ(g.y.dims, (std::array<std::int64_t, 4>{2, 4, s.p(), s.q()}));
  EXPECT_EQ(s.p(), 5);
  EXPECT_EQ(s.q(), 3);
  EXPECT_EQ(g.w.strides, (std::array<std::int64_t, 4>{36, 1, 12, 4}));  // K,R,S,C/groups in memory
  EXPECT_EQ(g.pre_padding, (std::array<std::int64_t, 2>{1, 0}));
  EXPECT_EQ(g.post_padding, g.pre_padding);
  EXPECT_EQ(g.stride, (std::array<std::int64_t, 2>{2, 1}));
  EXPECT_EQ(g.dilation, (std::array<std::int64_t, 2>{1, 2}));
  EXPECT_NE(g.x.uid, g.w.uid);
  EXPECT_NE(g.w.uid, g.y.uid);
  EXPECT_NE(g.x.uid, g.y.uid);
}

TEST(CudaConvGraph, PassTensorsFollowTensorDims) {
  ConvShape s;
  s.n = 1, s.c = 2, s.h = 4, s.w = 4, s.k = 3, s.r = 3, s.s = 3;
  const auto g = conv_graph_spec(s, Layout::nchw);
  for (Pass pass : layer_passes) {
    Problem problem{ConvProblem{s, pass}, Precision::fp32};
    const auto dims = tensor_dims(problem);
    const auto t = pass_tensors(g, pass);
    ASSERT_EQ(t.inputs.size(), dims.inputs.size());
    for (std::size_t i = 0; i < dims.inputs.size(); ++i)
      EXPECT_EQ(std::vector<std::int64_t>(t.inputs[i]->dims.begin(), t.inputs[i]->dims.end()),
                dims.inputs[i]);
    EXPECT_EQ(std::vector<std::int64_t>(t.output->dims.begin(), t.output->dims.end()), dims.output);
  }
}

TEST(CudaConvGraph, ChannelsLastScatterAndGather) {
  TensorSpec t;
  t.dims = {2, 3, 2, 2};
  t.strides = packed_strides(t.dims, Layout::nhwc);
  std::vector<float> canonical(24);
  std::iota(canonical.begin(), canonical.end(), 0.0f);
  const auto nhwc = to_strided(canonical, t);
  // Element (n=1, c=2, h=0, w=1): canonical index ((1*3+2)*2+0)*2+1 = 21, NHWC ((1*2+0)*2+1)*3+2.
  EXPECT_EQ(nhwc[((1 * 2 + 0) * 2 + 1) * 3 + 2], 21.0f);
  EXPECT_EQ(from_strided(nhwc, t), canonical);
  EXPECT_THROW(to_strided(std::vector<float>(5), t), std::invalid_argument);
}

TEST(CudaEngineFilter, RulesAsPyTorchWithTf32PreferringTensorCores) {
  EngineNotes tc, down, reduced, transform, plain;
  tc.tensor_core = true;
  down.down_convert_inputs = true;
  reduced.reduced_precision_reduction = true;
  transform.fft_or_winograd = true;
  struct Row {
    Precision precision;
    bool tc_ok, down_ok, reduced_ok, transform_ok;
  };
  // PyTorch's Conv_v8.cpp: down-converting engines never, Tensor Cores not for strict FP32;
  // reductions below FP32 allowed for 16-bit and FP8 data, never for FP32 data; FFT and Winograd
  // for every precision, as PyTorch filters neither (validation still holds them to tolerance).
  for (const Row& row : {Row{Precision::fp32, false, false, false, true},
                         Row{Precision::tf32, true, false, false, true},
                         Row{Precision::fp16, true, false, true, true},
                         Row{Precision::bf16, true, false, true, true},
                         Row{Precision::fp8, true, false, true, true}}) {
    SCOPED_TRACE(name(row.precision));
    EXPECT_EQ(!engine_rejection(row.precision, tc), row.tc_ok);
    EXPECT_EQ(!engine_rejection(row.precision, down), row.down_ok);
    EXPECT_EQ(!engine_rejection(row.precision, reduced), row.reduced_ok);
    EXPECT_EQ(!engine_rejection(row.precision, transform), row.transform_ok);
    EXPECT_FALSE(engine_rejection(row.precision, plain));
  }
  EXPECT_EQ(engine_rules().size(), std::size(all_precisions));
}

TEST(CudaEngineFilter, Tf32TimesOnlyTensorCoreEnginesWhenAnyIsOffered) {
  EngineNotes tc, fma;
  tc.tensor_core = true;
  const std::vector<EngineNotes> mixed{fma, tc, fma, tc};
  EXPECT_EQ(preferred_engines(Precision::tf32, mixed), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(preferred_engines(Precision::fp16, mixed), (std::vector<std::size_t>{0, 1, 2, 3}));
  // With no Tensor Core engine on offer tf32 still runs, on what there is.
  EXPECT_EQ(preferred_engines(Precision::tf32, {fma, fma}), (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(preferred_engines(Precision::tf32, {}).empty());
}

TEST(CudaWorkspacePolicy, AutotuningTakesFreeMemoryAsPyTorchUnlessLimited) {
  constexpr std::uint64_t option = 32ull << 20, free = 40ull << 30;
  struct Row {
    AutotuneWorkspace policy;
    AlgoChoice algo;
    std::uint64_t available, expected;
  };
  for (const Row& row : {Row{AutotuneWorkspace::free_memory, AlgoChoice::autotune, free, free},
                         Row{AutotuneWorkspace::limit, AlgoChoice::autotune, free, option},
                         Row{AutotuneWorkspace::free_memory, AlgoChoice::heuristic, free, option},
                         Row{AutotuneWorkspace::limit, AlgoChoice::heuristic, free, option},
                         // Never below --workspace-mb, which the point was checked to fit.
                         Row{AutotuneWorkspace::free_memory, AlgoChoice::autotune, 1, option}})
    EXPECT_EQ(workspace_limit(row.policy, row.algo, option, row.available), row.expected);
}

TEST(CudaDeviceRules, PrecisionsByComputeCapability) {
  EXPECT_FALSE(precision_unsupported(Precision::fp32, true, 7, 5));
  EXPECT_FALSE(precision_unsupported(Precision::fp16, true, 7, 0));
  EXPECT_TRUE(precision_unsupported(Precision::fp16, false, 6, 1));
  EXPECT_TRUE(precision_unsupported(Precision::tf32, false, 7, 5));
  EXPECT_FALSE(precision_unsupported(Precision::tf32, false, 8, 0));
  EXPECT_TRUE(precision_unsupported(Precision::bf16, true, 7, 5));
  EXPECT_FALSE(precision_unsupported(Precision::bf16, true, 8, 6));
  EXPECT_TRUE(precision_unsupported(Precision::fp8, false, 8, 6));
  EXPECT_FALSE(precision_unsupported(Precision::fp8, false, 8, 9));
  EXPECT_FALSE(precision_unsupported(Precision::fp8, false, 9, 0));
  const auto conv_fp8 = precision_unsupported(Precision::fp8, true, 9, 0);
  ASSERT_TRUE(conv_fp8);
  EXPECT_NE(conv_fp8->find("cuBLASLt"), std::string::npos);
  EXPECT_NE(precision_unsupported(Precision::tf32, false, 7, 5)->find("7.5"), std::string::npos);
}

TEST(CudaDeviceRules, StorageTypesMatchPrecisionSizes) {
  for (Precision p : all_precisions) {
    EXPECT_EQ(element_bytes(input_type(p)), std::size_t(input_bytes(p))) << name(p);
    EXPECT_EQ(element_bytes(output_type(p)), std::size_t(output_bytes(p))) << name(p);
  }
  EXPECT_EQ(output_type(Precision::fp8), ElementType::bf16);
}

TEST(CudaDeviceRules, AvailableMemoryHonoursTheLimit) {
  const std::uint64_t gib = 1ull << 30;
  EXPECT_EQ(available_bytes(10 * gib, 0, 0), 10 * gib);
  EXPECT_EQ(available_bytes(10 * gib, 1 * gib, 4 * gib), 3 * gib);
  EXPECT_EQ(available_bytes(2 * gib, 1 * gib, 4 * gib), 2 * gib);
  EXPECT_EQ(available_bytes(10 * gib, 5 * gib, 4 * gib), 0u);
  EXPECT_EQ(flush_bytes(50ull << 20), 100ull << 20);
}

TEST(CudaDeviceRules, ClockNotes) {
  EXPECT_TRUE(throttled(1000, 1400));
  EXPECT_FALSE(throttled(1050, 1400));
  auto notes = clock_notes("", 1980u, 1400u, 1980u);
  auto get = [&](const std::string& k) {
    for (auto& [key, v] : notes)
      if (key == k) return v;
    return std::string("<absent>");
  };
  EXPECT_EQ(get("sm_clock_mhz_before"), "1980");
  EXPECT_EQ(get("sm_clock_mhz_after"), "1400");
  EXPECT_EQ(get("sm_clock_default_mhz"), "1980");
  EXPECT_EQ(get("throttled"), "true");
  notes = clock_notes("", std::nullopt, 1900u, 1980u);
  EXPECT_EQ(get("sm_clock_mhz_before"), "unknown");
  EXPECT_EQ(get("throttled"), "false");
  notes = clock_notes("libnvidia-ml.so.1: cannot open", std::nullopt, std::nullopt, std::nullopt);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, "clock");
  EXPECT_NE(notes[0].second.find("NVML not available"), std::string::npos);
}

TEST(CudaDeviceRules, FastestSkipsFailedCandidates) {
  EXPECT_EQ(fastest({3e-3, 1e-3, 2e-3}), std::optional<std::size_t>(1));
  EXPECT_EQ(fastest({failed_time, 5e-3, failed_time, 4e-3}), std::optional<std::size_t>(3));
  EXPECT_EQ(fastest({failed_time, failed_time}), std::nullopt);
  EXPECT_EQ(fastest({}), std::nullopt);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(CudaLaunchHold, HoldFollowsTheHostsEnqueueTimeWithinItsBounds) {
  LaunchHold hold;
  EXPECT_EQ(hold.next_hold_ns(), LaunchHold::min_hold_ns);
  EXPECT_TRUE(hold.record(hold.next_hold_ns(), 3'000));     // 3 us enqueue under a 20 us hold
  EXPECT_EQ(hold.next_hold_ns(), LaunchHold::min_hold_ns);  // 4 x 3 us is below the floor
  EXPECT_TRUE(hold.record(hold.next_hold_ns(), 15'000));
  EXPECT_EQ(hold.next_hold_ns(), 60'000u);
  EXPECT_FALSE(hold.record(hold.next_hold_ns(), 1'000'000'000));  // a 1 s hiccup ...
  EXPECT_EQ(hold.next_hold_ns(), LaunchHold::max_hold_ns);        // ... is capped at 10 ms
}

TEST(CudaLaunchHold, AnOverrunIsUncleanAndGrowsTheHold) {
  LaunchHold hold;
  EXPECT_FALSE(hold.record(20'000, 50'000));  // the enqueue took longer than the hold
  EXPECT_TRUE(hold.retry());
  EXPECT_EQ(hold.next_hold_ns(), 200'000u);
  EXPECT_TRUE(hold.record(hold.next_hold_ns(), 50'000));
  const auto notes = hold.notes();
  auto get = [&](const std::string& key) {
    for (const auto& [k, v] : notes)
      if (k == key) return v;
    return std::string("missing");
  };
  EXPECT_EQ(get("launch_hold_unclean_runs"), "1 of 2");
  EXPECT_EQ(get("host_enqueue_us"), "50");
  EXPECT_EQ(get("launch_hold_us"), "200");
  EXPECT_EQ(get("launch_hold").rfind("on:", 0), 0u);
}

TEST(CudaLaunchHold, ALaunchThatBlocksTheHostStopsTheHolding) {
  LaunchHold hold;
  // Each enqueue lasts as long as the hold: the launch waited for the GPU to finish the hold.
  for (int i = 0; i < LaunchHold::give_up_after; ++i) {
    ASSERT_TRUE(hold.retry());
    const auto h = hold.next_hold_ns();
    EXPECT_FALSE(hold.record(h, h + 1'000));
  }
  EXPECT_FALSE(hold.retry());
  EXPECT_EQ(hold.next_hold_ns(), 0u);
  EXPECT_FALSE(hold.record(0, 5'000));  // unheld runs are never clean
  EXPECT_EQ(hold.notes().front().second.rfind("off:", 0), 0u);
  // Overruns that are not in a row do not stop it.
  LaunchHold other;
  for (int i = 0; i < 10; ++i) {
    other.record(other.next_hold_ns(), other.next_hold_ns() + 1);
    other.record(other.next_hold_ns(), 1'000);
  }
  EXPECT_TRUE(other.retry());
}

// A test double of a GPU case under autotuning: an output of 6 elements, candidates that each
// write some of them, a launch hold whose state the case keeps, and a record of the calls.
struct FakeCase {
  static constexpr float poison = -1.0f;  // stands for the NaN bytes
  std::vector<float> output = std::vector<float>(6, poison);
  // Candidate i writes the elements in writes[i] with value i, and takes seconds[i].
  std::vector<std::vector<std::size_t>> writes;
  std::vector<double> seconds;
  std::size_t selected = 0;
  LaunchHold hold;
  std::vector<std::string> calls;

  void launch() {
    for (std::size_t e : writes[selected]) output[e] = static_cast<float>(selected);
  }
  AutotuneSteps steps() {
    AutotuneSteps s;
    s.select = [this](std::size_t i) {
      selected = i;
      calls.push_back("select " + std::to_string(i));
    };
    s.reset_timing = [this] {
      hold = LaunchHold{};
      calls.push_back("reset");
    };
    s.launch = [this] { launch(); };
    s.time_once = [this] {
      launch();
      // A launch that blocks the host: its enqueue outlasts every hold.
      hold.record(hold.next_hold_ns(), LaunchHold::max_hold_ns + 1);
      return seconds[selected];
    };
    s.poison_output = [this] {
      std::fill(output.begin(), output.end(), poison);
      calls.push_back("poison");
    };
    s.label = [](std::size_t i) { return "candidate " + std::to_string(i); };
    return s;
  }
};

TEST(CudaAutotune, WinnerLeavesTheOutputPoisonedSoItsUnwrittenElementsShow) {
  FakeCase fake;
  fake.writes = {{0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4}};  // the fastest misses element 5
  fake.seconds = {2e-3, 1e-3};
  std::string summary;
  EXPECT_EQ(autotune(2, fake.steps(), summary), 1u);
  EXPECT_EQ(fake.selected, 1u);
  fake.launch();  // the measurement's first run, then validation reads the output
  EXPECT_EQ(fake.output[4], 1.0f);
  EXPECT_EQ(fake.output[5], FakeCase::poison);  // not candidate 0's value hiding the gap
  EXPECT_NE(summary.find("candidate 0 2.0"), std::string::npos) << summary;
}

TEST(CudaAutotune, EachCandidateAndTheWinnerStartWithAFreshLaunchHold) {
  FakeCase fake;
  fake.writes = {{0}, {0}, {0}};
  fake.seconds = {3e-3, 1e-3, 2e-3};
  std::string summary;
  ASSERT_EQ(autotune(3, fake.steps(), summary), 1u);
  EXPECT_EQ(fake.calls,
            (std::vector<std::string>{"select 0", "reset", "select 1", "reset", "select 2", "reset",
                                      "select 1", "reset", "poison"}));
  // Every candidate blocked the host for autotune_runs >= give_up_after runs, which stops a hold;
  // the winner is measured with holding on again.
  static_assert(autotune_runs >= LaunchHold::give_up_after);
  EXPECT_GT(fake.hold.next_hold_ns(), 0u);
  EXPECT_TRUE(fake.hold.retry());
}

TEST(CudaAutotune, FailedCandidatesAreNamedAndAllFailingThrows) {
  FakeCase fake;
  fake.writes = {{0}, {0}};
  fake.seconds = {1e-3, 2e-3};
  AutotuneSteps steps = fake.steps();
  steps.launch = [&fake] {
    if (fake.selected == 0) throw LibraryError("engine refused");
  };
  std::string summary;
  EXPECT_EQ(autotune(2, steps, summary), 1u);
  EXPECT_NE(summary.find("candidate 0 failed: engine refused"), std::string::npos) << summary;
  steps.launch = [] { throw LibraryError("no"); };
  summary.clear();
  EXPECT_THROW(autotune(2, steps, summary), LibraryError);
}

TEST(CudaAutotune, AFasterCandidateOutsideToleranceGivesWayToTheNextFastest) {
  FakeCase fake;
  fake.writes = {{0}, {0}, {0}};
  fake.seconds = {2e-3, 1e-3, 3e-3};
  AutotuneSteps steps = fake.steps();
  std::vector<std::size_t> checked;
  steps.rejects_output = [&](std::size_t i) -> std::optional<std::string> {
    checked.push_back(i);
    if (i == 1) return "rel_l2 1e-3 over 1e-4";
    return std::nullopt;
  };
  std::string summary;
  EXPECT_EQ(autotune(3, steps, summary), 0u);
  EXPECT_EQ(checked, (std::vector<std::size_t>{1, 0}));  // fastest first, stopping at a pass
  EXPECT_EQ(fake.selected, 0u);
  EXPECT_NE(summary.find("candidate 1 fails validation: rel_l2 1e-3 over 1e-4"), std::string::npos)
      << summary;
  steps.rejects_output = [](std::size_t) -> std::optional<std::string> { return "off"; };
  summary.clear();
  EXPECT_THROW(autotune(3, steps, summary), LibraryError);
}

// A data type cuDNN refuses is recorded unsupported, with its reason, never failed: NOT_SUPPORTED
// always, BAD_PARAM (the legacy API's answer to a type it lacks) for data that are not FP32.
TEST(CudaDeviceRules, CudnnRefusalsOfANonFp32TypeAreUnsupported) {
  for (const Precision p : all_precisions) {
    SCOPED_TRACE(name(p));
    const bool fp32_data = p == Precision::fp32 || p == Precision::tf32;
    EXPECT_TRUE(refusal_is_unsupported(CudnnRefusal::not_supported, p));
    EXPECT_EQ(refusal_is_unsupported(CudnnRefusal::bad_param, p), !fp32_data);
    EXPECT_FALSE(refusal_is_unsupported(CudnnRefusal::other, p));
  }
}

// A later round prepares the first round's choice alone, found by its name, and never times the
// candidates again; a name the library no longer offers is refused, not replaced.
TEST(CudaNamedChoice, FindsTheNamedCandidateAmongTheOffered) {
  const std::vector<std::string> offered{"cudnn engine 3 k1=2", "cudnn engine 12",
                                         "cudnn engine 12 k1=2"};
  EXPECT_EQ(named_candidate(offered, "cudnn engine 12", "cuDNN"), 1u);
  EXPECT_EQ(named_candidate(offered, "cudnn engine 12 k1=2", "cuDNN"), 2u);
  EXPECT_FALSE(named_candidate(offered, "", "cuDNN"));
  EXPECT_FALSE(named_candidate({}, "", "cuDNN"));
}

TEST(CudaNamedChoice, ANameNoCandidateHasIsUnsupportedAndSaysWhatIsOffered) {
  try {
    named_candidate({"cublaslt algo 6 tile 20", "cublaslt algo 21 tile 18"},
                    "cublaslt algo 6 tile 21", "cuBLASLt");
    FAIL() << "no exception";
  } catch (const Unsupported& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuBLASLt no longer offers cublaslt algo 6 tile 21"), std::string::npos)
        << what;
    EXPECT_NE(what.find("cublaslt algo 21 tile 18"), std::string::npos) << what;
  }
  EXPECT_THROW(named_candidate({}, "cudnn legacy IMPLICIT_GEMM", "cuDNN"), Unsupported);
}

}  // namespace
}  // namespace lb::cuda::logic
