// The oneDNN CPU backend against the double-precision reference: every convolution pass and
// several GEMM layouts, cold and warm, heuristic and autotuned; honest refusals of precisions.
#include "kernels/onednn/onednn_backend.hpp"

#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl_version.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "harness/check/validate.hpp"
#include "harness/doctor/snapshot.hpp"
#include "harness/measure/inputs.hpp"
#include "tests/unit/backend_case_support.hpp"

namespace lb {
namespace {

Problem conv(Pass pass, Precision precision = Precision::fp32) {
  ConvShape s;  // strided, padded, dilated, grouped: every index path of the primitives
  s.n = 2, s.c = 8, s.h = 9, s.w = 7, s.k = 12, s.r = 3, s.s = 3;
  s.stride_h = 2, s.stride_w = 1, s.pad_h = s.pad_w = 1, s.dil_w = 2, s.groups = 2;
  Problem p;
  p.op = ConvProblem{s, pass};
  p.precision = precision;
  return p;
}

Problem resnet_like_conv(Pass pass) {
  ConvShape s;  // a plain 3x3 layer, as in ResNet-50, small enough for a quick test
  s.n = 1, s.c = 16, s.h = 14, s.w = 14, s.k = 16, s.r = 3, s.s = 3, s.pad_h = s.pad_w = 1;
  Problem p;
  p.op = ConvProblem{s, pass};
  return p;
}

Problem gemm(GemmShape g, Precision precision = Precision::fp32) {
  Problem p;
  p.op = GemmProblem{g};
  p.precision = precision;
  return p;
}

std::vector<Problem> fp32_problems() {
  std::vector<Problem> all;
  for (Pass pass : layer_passes) all.push_back(conv(pass)), all.push_back(resnet_like_conv(pass));
  all.push_back(gemm({1, 33, 20, 17, false, false}));  // NN
  all.push_back(gemm({1, 33, 20, 17, false, true}));   // NT: a linear layer, y = x W^T
  all.push_back(gemm({1, 33, 20, 17, true, false}));   // TN: a weight gradient
  all.push_back(gemm({3, 10, 12, 8, false, true}));    // batched, as attention's Q K^T
  all.push_back(gemm({1, 200, 90, 64, false, true}));  // 18000 outputs: validated on a sample
  return all;
}

class OnednnBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> backend = onednn::make_backend(0);

  Validation run(const Problem& p, CacheMode cache, AlgoChoice algo, std::string* impl = nullptr) {
    CaseOptions options;
    options.cache = cache, options.algo = algo;
    const testing::CaseOutcome outcome = testing::prepare_run_validate(*backend, p, options);
    EXPECT_FALSE(outcome.prepared->implementation().empty());
    EXPECT_EQ(outcome.prepared->library(), "onednn");
    if (impl) *impl = outcome.prepared->implementation();
    return outcome.validation;
  }
};

TEST_F(OnednnBackendTest, EveryPassAndGemmLayoutMatchesTheReferenceColdAndWarm) {
  for (const auto& p : fp32_problems())
    for (CacheMode cache : {CacheMode::cold, CacheMode::warm}) {
      ASSERT_FALSE(backend->unsupported_reason(p).has_value()) << describe(p);
      const auto v = run(p, cache, AlgoChoice::heuristic);
      EXPECT_TRUE(v.passed) << describe(p) << " rel_l2 " << v.rel_l2 << " cold "
                            << (cache == CacheMode::cold);
      EXPECT_LT(v.rel_l2, 1e-5) << describe(p);
    }
}

TEST_F(OnednnBackendTest, AutotunedCasesAreCorrectAndSayWhatTheyCompared) {
  for (const auto& p : {resnet_like_conv(Pass::fwd), conv(Pass::bwd_weights)}) {
    // default options: cold, autotune
    const auto outcome = testing::prepare_run_validate(*backend, p, CaseOptions{}, 1, 6);
    EXPECT_TRUE(outcome.validation.passed) << describe(p);
    std::map<std::string, std::string> notes;
    for (const auto& [k, v] : outcome.prepared->notes()) notes[k] = v;
    EXPECT_EQ(notes["choice"], "autotune");
    EXPECT_FALSE(notes["heuristic_choice"].empty());
    EXPECT_GT(std::stoull(notes["evicted_bytes"]), 0u) << "cold mode evicts the operands";
  }
}

TEST_F(OnednnBackendTest, AnImplementationAskedByNameRunsWithoutAutotuning) {
  const auto p = resnet_like_conv(Pass::fwd);
  const auto inputs = make_inputs(p, 8);
  const auto chosen = backend->prepare(p, inputs, CaseOptions{})->implementation();
  CaseOptions named;
  named.implementation = chosen;
  auto c = backend->prepare(p, inputs, named);
  EXPECT_EQ(c->implementation(), chosen);
  std::map<std::string, std::string> notes;
  for (const auto& [k, v] : c->notes()) notes[k] = v;
  EXPECT_EQ(notes["choice"], "named");
  EXPECT_EQ(notes.count("autotune_candidates"), 0u) << "no candidate was timed";
  c->run_timed();
  EXPECT_TRUE(validate(p, inputs, c->output(), p.precision).passed);
  named.implementation = "no_such:implementation";
  EXPECT_THROW(backend->prepare(p, inputs, named), Unsupported);
}

// Runs the pre-emption check calls pre-empted do not set a candidate's time while the round has
// clean ones. The stand-in check calls every other run pre-empted and makes it look 1000 times
// faster, so a candidate's best time would show it if it counted.
TEST_F(OnednnBackendTest, AutotuningLeavesOutPreemptedRuns) {
  const auto p = resnet_like_conv(Pass::fwd);
  const auto inputs = make_inputs(p, 9);
  CaseOptions options;
  int calls = 0;
  double fastest_clean = 1e9;
  options.checked_run = [&](const std::function<double()>& run) {
    const double t = run();
    if (++calls % 2 == 0) return CheckedRun{t / 1000, t, t, true};
    fastest_clean = std::min(fastest_clean, t);
    return CheckedRun{t, t, t, false};
  };
  auto c = backend->prepare(p, inputs, options);
  std::map<std::string, std::string> notes;
  for (const auto& [k, v] : c->notes()) notes[k] = v;
  const auto& candidates = notes["autotune_candidates"];
  if (candidates.empty()) GTEST_SKIP() << "oneDNN offers one implementation here";
  EXPECT_GT(std::stoi(notes["autotune_preempted_runs"]), 0);
  // Every candidate's best, "NAME (algo) best X ms": none below the fastest clean run.
  for (std::size_t at = candidates.find(" best "); at != std::string::npos;
       at = candidates.find(" best ", at + 1))
    EXPECT_GE(std::stod(candidates.substr(at + 6)) * 1e-3, fastest_clean * 0.99) << candidates;
}

TEST_F(OnednnBackendTest, WarmModeEvictsNothing) {
  const auto p = resnet_like_conv(Pass::bwd_weights);
  CaseOptions options;
  options.cache = CacheMode::warm;
  auto c = backend->prepare(p, make_inputs(p, 7), options);
  std::map<std::string, std::string> notes;
  for (const auto& [k, v] : c->notes()) notes[k] = v;
  EXPECT_EQ(notes["evicted_bytes"], "0");
}

TEST_F(OnednnBackendTest, SixteenBitPrecisionsAreRunOrRefusedWithOneDnnsReason) {
  for (Precision precision : {Precision::bf16, Precision::fp16}) {
    for (const auto& p :
         {conv(Pass::fwd, precision), gemm({1, 33, 20, 17, false, true}, precision)}) {
      const auto reason = backend->unsupported_reason(p);
      if (reason) {
        EXPECT_NE(reason->find("oneDNN"), std::string::npos) << *reason;
        EXPECT_NE(reason->find("unimplemented"), std::string::npos) << *reason;
        EXPECT_THROW(backend->prepare(p, make_inputs(p, 8), CaseOptions{}), Unsupported);
      } else {  // a CPU that can: then the answer must be right at the 16-bit tolerance
        const auto v = run(p, CacheMode::warm, AlgoChoice::heuristic);
        EXPECT_TRUE(v.passed) << describe(p) << " " << name(precision) << " rel_l2 " << v.rel_l2;
      }
    }
  }
}

TEST_F(OnednnBackendTest, Tf32AndFp8AreNeverRunOnTheCpu) {
  for (Precision precision : {Precision::tf32, Precision::fp8}) {
    const auto p = conv(Pass::fwd, precision);
    const auto reason = backend->unsupported_reason(p);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find(precision == Precision::tf32 ? "TF32" : "FP8"), std::string::npos);
    EXPECT_THROW(backend->prepare(p, make_inputs(p, 9), CaseOptions{}), Unsupported);
  }
}

// The device facts name threading, ISA and threads; the version is context.libraries', given
// once by the descriptor and not repeated in the facts.
TEST_F(OnednnBackendTest, ContextNamesThreadingIsaAndThreadsAndTheDescriptorTheVersion) {
  std::map<std::string, std::string> context;
  for (const auto& [k, v] : backend->context()) context[k] = v;
  EXPECT_EQ(context.count("onednn_version"), 0u);
  doctor::Snapshot snapshot;
  onednn::descriptor().probe(snapshot);
  const auto libraries = onednn::descriptor().libraries(snapshot);
  ASSERT_EQ(libraries.size(), 1u);
  EXPECT_EQ(libraries[0].first, "onednn");
  // The library loaded has the major version the backend was compiled against (3.x API).
  static_assert(DNNL_VERSION_MAJOR >= 3, "the backend uses the oneDNN 3 API");
  const std::string compiled_major = std::to_string(DNNL_VERSION_MAJOR) + ".";
  EXPECT_EQ(libraries[0].second.rfind(compiled_major, 0), 0u) << libraries[0].second;
  EXPECT_FALSE(context["threading"].empty());
  EXPECT_FALSE(context["isa"].empty());
  EXPECT_FALSE(context["threads"].empty());
  EXPECT_EQ(backend->name(), "onednn");
  EXPECT_EQ(backend->device(), "cpu");
}

TEST(OnednnBackend, OneThreadGivesTheSameAnswer) {
  std::unique_ptr<Backend> backend;
  try {
    backend = onednn::make_backend(1);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << e.what();
  }
  std::map<std::string, std::string> context;
  for (const auto& [k, v] : backend->context()) context[k] = v;
  EXPECT_EQ(context["threads"], "1");
  const auto p = conv(Pass::bwd_data);
  const auto inputs = make_inputs(p, 10);
  auto c = backend->prepare(p, inputs, CaseOptions{});
  c->run_timed();
  EXPECT_TRUE(validate(p, inputs, c->output(), p.precision).passed);
}

TEST(OnednnBackend, RejectsInputsOfTheWrongSize) {
  auto backend = onednn::make_backend(0);
  const auto p = conv(Pass::fwd);
  auto inputs = make_inputs(p, 11);
  inputs[1].data.pop_back();
  EXPECT_THROW(backend->prepare(p, inputs, CaseOptions{}), std::invalid_argument);
}

TEST(OnednnBackend, ExecuteUntimedRefusesAForeignCase) {
  struct Foreign : Case {
    double run_timed() override { return 0; }
    HostTensor output() override { return {}; }
    std::string implementation() const override { return "none"; }
    std::string library() const override { return "none"; }
    std::uint64_t workspace_bytes() const override { return 0; }
  } foreign;
  EXPECT_THROW(onednn::execute_untimed(foreign), std::invalid_argument);
}

}  // namespace
}  // namespace lb
