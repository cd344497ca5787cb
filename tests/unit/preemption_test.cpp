#include "harness/measure/preemption.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace lb {
namespace {

// Synthetic samples (test data): 2 compute threads over 1 ms of wall time.
TEST(Preemption, FullShareIsCleanEvenWithASwitch) {
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0}));
  EXPECT_FALSE(preempted({1e-3, 1.95e-3, 2, 1}));  // a kernel thread's blip: 2.5% lost
}

TEST(Preemption, AThreadOffItsCoreWithASwitchIsPreempted) {
  // One of two threads gone for 3 of the 4 ms: share 5/8.
  EXPECT_TRUE(preempted({4e-3, 5e-3, 2, 1}));
  EXPECT_TRUE(preempted({4e-3, 0, 1, 3}));
}

TEST(Preemption, OneThreadsWorthWithoutASwitchIsAWaitNotAPreemption) {
  // A worker asleep by its own choice (voluntary) while the caller works: share 1/2, no switch.
  EXPECT_FALSE(preempted({1e-3, 1e-3, 2, 0}));
}

TEST(Preemption, NoThreadRunningIsPreemptedWithoutAnySwitch) {
  // A woken worker waiting in the run queue: 31 ms of wall, 7.5 ms of CPU over 2 threads (the
  // shape of the loaded runs), no involuntary switch counted.
  EXPECT_TRUE(preempted({31e-3, 7.5e-3, 2, 0}));
  EXPECT_TRUE(preempted({1e-3, 0.5e-3, 1, 0}));
  EXPECT_FALSE(preempted({1e-3, 0.95e-3, 1, 0}));
}

TEST(Preemption, WithoutSwitchCountsTheShareDecides) {
  EXPECT_TRUE(preempted({1e-3, 1e-3, 2, -1}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, -1}));
}

// The loaded quick run's batch norm (test data shaped on it): the caller spun on its core for
// the whole 7.9 ms (CPU time = wall, no hole) and no switch was counted, while the woken worker
// waited 7.8 ms for the core a busy loop held. Only the run-queue wait tells.
TEST(Preemption, AThreadWaitingForACoreIsPreemptedWithoutSwitchOrHole) {
  EXPECT_FALSE(preempted({7.9e-3, 7.9e-3, 2, 0}));  // the two other signals see nothing
  EXPECT_TRUE(preempted({7.9e-3, 7.9e-3, 2, 0, 7.8e-3}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, 0}));        // quiet: no wait
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, 0.09e-3}));  // under a tenth: kept
  EXPECT_TRUE(preempted({1e-3, 2e-3, 2, 0, 0.11e-3}));
  EXPECT_FALSE(preempted({1e-3, 2e-3, 2, 0, -1}));  // not known: the other signals decide
}

TEST(Preemption, ThresholdEdgesAndDegenerateInput) {
  const double wall = 1e-3, threads = 2;
  EXPECT_FALSE(preempted({wall, preempted_below_share * wall * threads, 2, 1}));
  EXPECT_TRUE(preempted({wall, 0.99 * preempted_below_share * wall * threads, 2, 1}));
  EXPECT_FALSE(preempted({wall, preempted_below_share * wall, 2, 0}));
  EXPECT_TRUE(preempted({wall, 0.99 * preempted_below_share * wall, 2, 0}));
  EXPECT_FALSE(preempted({0, 0, 2, 5}));     // no wall time: nothing to judge
  EXPECT_FALSE(preempted({1e-3, 0, 0, 5}));  // no threads: nothing to judge
}

// The check around one call, fed scripted readings (test data): the call's CPU time is what
// the readings differ by, its wall time the steady clock's.
TEST(PreemptionCheck, JudgesTheCallByTheReadingsAroundIt) {
  std::vector<PreemptionCheck::CpuReading> readings{{0, 0, 0}, {0, 1, 0}};
  std::size_t read = 0;
  PreemptionCheck check;
  check.threads = 1;
  check.usage = [&] { return readings[read++]; };
  const CheckedRun lost = check.run([] { return 2e-3; });
  EXPECT_DOUBLE_EQ(lost.seconds, 2e-3);
  EXPECT_EQ(lost.cpu_s, 0);
  EXPECT_GE(lost.wall_s, 0);
  EXPECT_EQ(read, 2u);
  // No CPU time over a call that took wall time: pre-empted. (A call of no measurable wall time
  // has nothing to judge; spinning until the clock moves makes it one.)
  read = 0;
  const auto spin = [] {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(100)) {
    }
    return 1e-4;
  };
  EXPECT_TRUE(check.run(spin).preempted);
  readings = {{0, 0, 0}, {1e3, 0, 0}};  // far more CPU time than wall: clean
  read = 0;
  EXPECT_FALSE(check.run(spin).preempted);
}

TEST(PreemptionCheck, WithoutReadingsOnlyTheCallsOwnTimeIsKept) {
  const CheckedRun run = PreemptionCheck{}.run([] { return 3e-3; });
  EXPECT_DOUBLE_EQ(run.seconds, 3e-3);
  EXPECT_EQ(run.wall_s, 0);
  EXPECT_FALSE(run.preempted);
}

}  // namespace
}  // namespace lb
