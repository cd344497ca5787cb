// The sampler a point measures with: CPU points are judged by their backend's compute threads,
// carried as a number from the backend; GPU points' CPU time is read, never judged.
#include "harness/measure/point_measurement.hpp"

#include <gtest/gtest.h>

namespace lb {
namespace {

class ThreadsBackend final : public Backend {
 public:
  explicit ThreadsBackend(int threads) : threads_(threads) {}
  std::string name() const override { return "test"; }
  std::string device() const override { return "cpu"; }
  std::optional<std::string> unsupported_reason(const Problem&) const override {
    return std::nullopt;
  }
  std::unique_ptr<Case> prepare(const Problem&, const std::vector<HostTensor>&,
                                const CaseOptions&) override {
    throw Unsupported("not run in this test");
  }
  std::vector<std::pair<std::string, std::string>> context() const override { return {}; }
  int compute_threads() const override { return threads_; }

 private:
  int threads_;
};

TEST(SamplerFor, ACpuPointIsJudgedByItsBackendsComputeThreads) {
  const Sampler sampler;
  const Sampler three = sampler_for(sampler, "cpu", ThreadsBackend(3));
  EXPECT_EQ(three.preemption.threads, 3);
  EXPECT_TRUE(three.preemption.usage);
  // A backend that cannot tell (a library's own default) counts as one thread.
  EXPECT_EQ(sampler_for(sampler, "cpu", ThreadsBackend(0)).preemption.threads, 1);
}

TEST(SamplerFor, AGpuPointsCpuTimeIsReadButNotJudged) {
  const Sampler gpu = sampler_for(Sampler{}, "gpu:0", ThreadsBackend(3));
  EXPECT_EQ(gpu.preemption.threads, 0);
  EXPECT_TRUE(gpu.preemption.usage);
}

}  // namespace
}  // namespace lb
