// The OpenBLAS CPU backend (kernels/openblas) against the double-precision reference: the GEMM
// layouts the models use, cold (rotated buffer sets) and warm; convolutions and every precision
// but FP32 refused with the reason; the thread count set and recorded. Skipped in a build
// without OpenBLAS.
#include <gtest/gtest.h>

#include <map>

#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"
#include "tests/unit/backend_case_support.hpp"
#include "tests/unit/page_offsets_support.hpp"
#if LAYERBENCH_HAVE_OPENBLAS
#include "kernels/openblas/openblas_backend.hpp"
#endif

namespace lb {
namespace {

#if LAYERBENCH_HAVE_OPENBLAS

Problem gemm(GemmShape g, Precision precision = Precision::fp32) {
  Problem p;
  p.op = GemmProblem{g};
  p.precision = precision;
  return p;
}

std::map<std::string, std::string> as_map(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  return {pairs.begin(), pairs.end()};
}

TEST(OpenblasBackend, GemmLayoutsMatchTheReferenceColdAndWarm) {
  auto backend = openblas::make_backend(0);
  for (const GemmShape& g : {GemmShape{1, 33, 20, 17, false, false},     // NN
                             GemmShape{1, 33, 20, 17, false, true},      // NT: y = x W^T
                             GemmShape{1, 33, 20, 17, true, false},      // TN: a weight gradient
                             GemmShape{3, 10, 12, 8, false, true},       // batched Q K^T
                             GemmShape{2, 197, 64, 197, false, false},   // batched P V, sampled
                             GemmShape{1, 64, 64, 64, false, false}}) {  // whole pages each
    const Problem p = gemm(g);
    ASSERT_FALSE(backend->unsupported_reason(p).has_value()) << describe(p);
    for (CacheMode cache : {CacheMode::cold, CacheMode::warm}) {
      CaseOptions options;
      options.cache = cache;
      const testing::CaseOutcome outcome = testing::prepare_run_validate(*backend, p, options);
      const Case* c = outcome.prepared.get();
      const Validation& v = outcome.validation;
      EXPECT_TRUE(v.passed) << describe(p) << " rel_l2 " << v.rel_l2;
      EXPECT_LT(v.rel_l2, 1e-5) << describe(p);
      EXPECT_EQ(c->library(), "openblas");
      EXPECT_EQ(c->implementation().rfind("cblas_sgemm", 0), 0u) << c->implementation();
      const auto notes = as_map(c->notes());
      // Cold: A, B and C, every byte of them, evicted before each run.
      const auto operand_bytes =
          sizeof(float) * static_cast<std::uint64_t>(g.batch * (g.m * g.k + g.k * g.n + g.m * g.n));
      EXPECT_EQ(std::stoull(notes.at("evicted_bytes")),
                cache == CacheMode::cold ? operand_bytes : 0u)
          << describe(p);
      EXPECT_EQ(page_offsets_in(notes.at("page_offsets")).size(), 3u) << describe(p);  // A, B, C
      expect_no_two_aliased(notes.at("page_offsets"), describe(p));
    }
  }
}

TEST(OpenblasBackend, ConvolutionsAreUnsupportedWithTheReason) {
  auto backend = openblas::make_backend(0);
  ConvShape s;
  s.n = 1, s.c = 8, s.h = 7, s.w = 7, s.k = 8, s.r = 3, s.s = 3, s.pad_h = s.pad_w = 1;
  Problem p;
  p.op = ConvProblem{s, Pass::fwd};
  const auto reason = backend->unsupported_reason(p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("no convolution"), std::string::npos) << *reason;
  EXPECT_THROW(backend->prepare(p, make_inputs(p, 6), CaseOptions{}), Unsupported);
}

TEST(OpenblasBackend, MemoryBoundOpsAreUnsupportedWithTheReason) {
  auto backend = openblas::make_backend(0);
  Problem p;
  p.op = MemoryProblem{MemoryShape{MemoryOp::softmax, {2, 3, 5}}, Pass::fwd};
  const auto reason = backend->unsupported_reason(p);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("no softmax"), std::string::npos) << *reason;
  EXPECT_THROW(backend->prepare(p, make_inputs(p, 8), CaseOptions{}), Unsupported);
}

TEST(OpenblasBackend, EveryPrecisionButFp32IsUnsupported) {
  auto backend = openblas::make_backend(0);
  for (Precision precision : all_precisions) {
    const Problem p = gemm({1, 33, 20, 17, false, true}, precision);
    const auto reason = backend->unsupported_reason(p);
    EXPECT_EQ(reason.has_value(), precision != Precision::fp32) << name(precision);
    if (!reason) continue;
    EXPECT_NE(reason->find("FP32 only"), std::string::npos) << *reason;
    EXPECT_NE(reason->find(std::string(name(precision))), std::string::npos) << *reason;
    EXPECT_THROW(backend->prepare(p, make_inputs(p, 7), CaseOptions{}), Unsupported);
  }
}

TEST(OpenblasBackend, ThreadCountIsSetAndRecorded) {
  auto one = openblas::make_backend(1);
  EXPECT_EQ(as_map(one->context()).at("threads"), "1");
  auto two = openblas::make_backend(2);
  EXPECT_EQ(as_map(two->context()).at("threads"), "2");
  const auto context = as_map(one->context());
  EXPECT_NE(context.at("openblas_config").find("OpenBLAS"), std::string::npos);
  EXPECT_FALSE(context.at("core").empty());
  EXPECT_EQ(one->name(), "openblas");
  EXPECT_EQ(one->device(), "cpu");
}

TEST(OpenblasBackend, RejectsInputsOfTheWrongSizeAndAMemoryLimitTooSmall) {
  auto backend = openblas::make_backend(0);
  const Problem p = gemm({1, 33, 20, 17, false, true});
  auto inputs = make_inputs(p, 11);
  CaseOptions tiny;
  tiny.memory_limit_bytes = 1024;  // below one set of A, B and C (33x17 + 20x17 + 33x20 floats)
  EXPECT_THROW(backend->prepare(p, inputs, tiny), OutOfMemory);
  inputs[1].data.pop_back();
  EXPECT_THROW(backend->prepare(p, inputs, CaseOptions{}), std::invalid_argument);
}

#else

TEST(OpenblasBackend, NotBuilt) { GTEST_SKIP() << "this build has no OpenBLAS backend"; }

#endif

}  // namespace
}  // namespace lb
