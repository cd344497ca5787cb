// The run loop: a point whose library fails in the middle of its timed samples is recorded as
// failed with the library's message, and the run goes on to the next point.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <system_error>

#include "harness/check/reference.hpp"
#include "harness/measure/run_loop.hpp"
#include "harness/model/ops.hpp"

namespace lb {
namespace {

// One 2x2x2 GEMM, planned at batches 1 and 2 on `device`.
Model one_gemm_model() {
  Model model;
  model.name = "m";
  Op op;
  op.id = "gemm";
  op.kind = OpKind::linear;
  op.layers = {"layer"};
  op.tokens = 2;
  op.gemm.m = 2, op.gemm.n = 2, op.gemm.k = 2, op.gemm.trans_b = true;
  model.ops = {op};
  return model;
}

std::vector<PlannedPoint> batches_1_and_2(const Model& model, const std::string& device) {
  std::vector<PlannedPoint> points(
      2, PlannedPoint{&model, &model.ops[0], 1, Precision::fp32, Pass::fwd, device});
  points[1].batch = 2;
  return points;
}

// A case whose launch fails on its fifth run: inside the sampling, after a few good runs.
class FailingCase final : public Case {
 public:
  double run_timed() override {
    if (++runs_ == 5) throw LibraryError("launch failed");
    return 1e-3;
  }
  HostTensor output() override { return {}; }
  std::string implementation() const override { return "test case"; }
  std::string library() const override { return "test"; }
  std::uint64_t workspace_bytes() const override { return 0; }

 private:
  int runs_ = 0;
};

class FailingBackend final : public Backend {
 public:
  std::string name() const override { return "test"; }
  std::string device() const override { return "cpu"; }
  std::optional<std::string> unsupported_reason(const Problem&) const override {
    return std::nullopt;
  }
  std::unique_ptr<Case> prepare(const Problem&, const std::vector<HostTensor>&,
                                const CaseOptions&) override {
    return std::make_unique<FailingCase>();
  }
  std::vector<std::pair<std::string, std::string>> context() const override { return {}; }
};

TEST(RunLoop, ALibraryErrorDuringSamplingFailsThePointAndTheRunGoesOn) {
  const Model model = one_gemm_model();
  const std::vector<PlannedPoint> points = batches_1_and_2(model, "cpu");

  FailingBackend backend;
  RunLoop loop;
  loop.backend_for = [&](const PlannedPoint&) -> Backend& { return backend; };
  std::vector<Point> recorded;
  loop.on_point = [&](const PlannedPoint&, const Point& p) { recorded.push_back(p); };
  loop.run(points, {});

  ASSERT_EQ(recorded.size(), 2u);
  for (const Point& p : recorded) {
    EXPECT_EQ(p.status, Status::failed) << p.key();
    EXPECT_NE(p.reason.find("launch failed"), std::string::npos) << p.reason;
  }
  EXPECT_EQ(recorded[1].batch, 2);
}

// Batch 1's set-up cannot start a thread (std::thread's EAGAIN); batch 2's fails otherwise.
class ThreadStartBackend final : public Backend {
 public:
  std::string name() const override { return "test"; }
  std::string device() const override { return "cpu"; }
  std::optional<std::string> unsupported_reason(const Problem&) const override {
    return std::nullopt;
  }
  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>&,
                                const CaseOptions&) override {
    throw std::system_error(std::make_error_code(problem.gemm().shape.m == 2
                                                     ? std::errc::resource_unavailable_try_again
                                                     : std::errc::io_error));
  }
  std::vector<std::pair<std::string, std::string>> context() const override { return {}; }
};

TEST(RunLoop, AThreadThatCannotStartIsOutOfMemoryAndOtherSystemErrorsFail) {
  const Model model = one_gemm_model();
  ThreadStartBackend backend;
  RunLoop loop;
  loop.backend_for = [&](const PlannedPoint&) -> Backend& { return backend; };
  std::vector<Point> recorded;
  loop.on_point = [&](const PlannedPoint&, const Point& p) { recorded.push_back(p); };
  loop.run(batches_1_and_2(model, "cpu"), {});

  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].status, Status::oom);
  EXPECT_NE(recorded[0].reason.find("a thread could not start"), std::string::npos)
      << recorded[0].reason;
  EXPECT_EQ(recorded[1].status, Status::failed);
  EXPECT_EQ(recorded[1].reason.find("a thread could not start"), std::string::npos)
      << recorded[1].reason;
}

// A case whose every sample takes `seconds` and whose output is the reference's.
class ExactCase final : public Case {
 public:
  ExactCase(double seconds, const Problem& problem, const std::vector<HostTensor>& inputs)
      : seconds_(seconds), problem_(problem), inputs_(inputs) {}
  double run_timed() override { return seconds_; }
  HostTensor output() override {
    const std::vector<double> values = reference_all(problem_, inputs_);
    return {tensor_dims(problem_).output, std::vector<float>(values.begin(), values.end())};
  }
  std::string implementation() const override { return "exact"; }
  std::string library() const override { return "test"; }
  std::uint64_t workspace_bytes() const override { return 0; }

 private:
  double seconds_;
  Problem problem_;
  std::vector<HostTensor> inputs_;
};

// Batch 1's rounds take 1 ms and 2 ms in turn (they disagree); batch 2's always 1 ms.
class AlternatingBackend final : public Backend {
 public:
  std::string name() const override { return "test"; }
  std::string device() const override { return "gpu:0"; }
  std::optional<std::string> unsupported_reason(const Problem&) const override {
    return std::nullopt;
  }
  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>& inputs,
                                const CaseOptions&) override {
    const bool alternating = problem.gemm().shape.m == 2;
    const double seconds =
        alternating && prepared_[problem.gemm().shape.m]++ % 2 == 1 ? 2e-3 : 1e-3;
    return std::make_unique<ExactCase>(seconds, problem, inputs);
  }
  std::vector<std::pair<std::string, std::string>> context() const override { return {}; }

 private:
  std::map<std::int64_t, int> prepared_;
};

TEST(RunLoop, OnlyPointsWhoseRoundsDisagreeGetExtraRoundsUpToTheCap) {
  const Model model = one_gemm_model();
  const std::vector<PlannedPoint> points = batches_1_and_2(model, "gpu:0");

  AlternatingBackend backend;
  RunLoop loop;
  loop.config.rounds = 2;
  loop.config.sampler.rule.min_time_s = 0;
  loop.config.extra_rounds.budget_fraction = 100;  // time is not what this test bounds
  loop.backend_for = [&](const PlannedPoint&) -> Backend& { return backend; };
  std::map<int, Point> last;
  loop.on_point = [&](const PlannedPoint& pp, const Point& p) { last[pp.batch] = p; };
  loop.run(points, {});

  ASSERT_EQ(last.size(), 2u);
  ASSERT_TRUE(last[1].timing && last[2].timing) << last[1].reason << last[2].reason;
  EXPECT_EQ(last[1].timing->round_medians_s, (std::vector<double>{1e-3, 2e-3, 1e-3, 2e-3}));
  EXPECT_TRUE(last[1].timing->unstable);
  EXPECT_NEAR(last[1].timing->uncertainty, 1.0, 1e-12);
  EXPECT_EQ(last[2].timing->round_medians_s.size(), 2u);  // its rounds agree
  EXPECT_FALSE(last[2].timing->unstable);

  loop.config.extra_rounds.budget_fraction = 0;  // no time for extra rounds
  loop.run(points, {});
  EXPECT_EQ(last[1].timing->round_medians_s.size(), 2u);
}

}  // namespace
}  // namespace lb
