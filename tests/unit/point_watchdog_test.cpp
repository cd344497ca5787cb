#include "harness/measure/point_watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace lb {
namespace {

using namespace std::chrono_literals;

TEST(PointWatchdog, DefaultBoundIsSetUpPlusTwentyCaps) {
  EXPECT_DOUBLE_EQ(default_point_time_bound_s(1), 320);
  EXPECT_DOUBLE_EQ(default_point_time_bound_s(0.05), 301);
}

TEST(PointWatchdog, GraceIsTheBoundAndAtLeastThirtySeconds) {
  EXPECT_DOUBLE_EQ(point_stuck_grace_s(0.5), 30);
  EXPECT_DOUBLE_EQ(point_stuck_grace_s(320), 320);
}

TEST(PointWatchdog, CheckThrowsOnlyPastTheBound) {
  PointWatchdog watchdog(0.2, 60, [](const PlannedPoint&) {});
  const PlannedPoint point;
  watchdog.check();  // nothing watched: never throws
  watchdog.begin(point);
  EXPECT_NO_THROW(watchdog.check());
  std::this_thread::sleep_for(250ms);
  try {
    watchdog.check();
    FAIL() << "no throw past the bound";
  } catch (const PointTimeBoundExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("point time bound of 0.2 s"), std::string::npos)
        << e.what();
  }
  watchdog.end();
  EXPECT_NO_THROW(watchdog.check());
  watchdog.begin(point);  // the next point starts its own clock
  EXPECT_NO_THROW(watchdog.check());
  watchdog.end();
}

TEST(PointWatchdog, PointStuckPastBoundAndGraceIsHandedOverOnce) {
  std::atomic<const PlannedPoint*> stuck{nullptr};
  std::atomic<int> calls{0};
  PointWatchdog watchdog(0.05, 0.05, [&](const PlannedPoint& p) {
    stuck = &p;
    ++calls;
  });
  const PlannedPoint point;
  watchdog.begin(point);
  for (int i = 0; i < 2000 && calls == 0; ++i) std::this_thread::sleep_for(5ms);  // 10 s at most
  EXPECT_EQ(stuck.load(), &point);
  std::this_thread::sleep_for(200ms);  // past bound and grace again: not handed over twice
  watchdog.end();
  EXPECT_EQ(calls, 1);
}

TEST(PointWatchdog, PointThatComesBackInTimeIsNotHandedOver) {
  std::atomic<int> calls{0};
  PointWatchdog watchdog(0.2, 0.8, [&](const PlannedPoint&) { ++calls; });
  const PlannedPoint first, second;
  for (const PlannedPoint* p : {&first, &second}) {  // past the bound, within the grace
    watchdog.begin(*p);
    std::this_thread::sleep_for(600ms);
    watchdog.end();
  }
  std::this_thread::sleep_for(1200ms);  // nothing watched now
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace lb
