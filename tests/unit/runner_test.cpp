// The run loop: a point whose library fails in the middle of its timed samples is recorded as
// failed with the library's message, and the run goes on to the next point.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/measure/runner.hpp"
#include "harness/model/ops.hpp"

namespace lb {
namespace {

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
  Model model;
  model.name = "m";
  Op op;
  op.id = "gemm";
  op.kind = OpKind::linear;
  op.layers = {"layer"};
  op.tokens = 2;
  op.gemm.m = 2, op.gemm.n = 2, op.gemm.k = 2, op.gemm.trans_b = true;
  model.ops = {op};
  std::vector<PlannedPoint> points(
      2, PlannedPoint{&model, &model.ops[0], 1, Precision::fp32, Pass::fwd, "cpu"});
  points[1].batch = 2;

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

}  // namespace
}  // namespace lb
