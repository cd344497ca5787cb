#pragma once
// A bound on the wall time of one point, set-up included. Between samples a point past its bound
// is stopped (check() throws; the runner records it failed). A point that has not come back a
// grace after its bound is stuck inside a call that may never return (a deadlocked library, a
// hung driver), which no check between samples can reach: the watchdog's own thread then hands
// it to `on_stuck`, which records it and ends the process.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/plan/plan.hpp"

namespace lb {

// The bound when `run --point-timeout` is not given, in seconds:
// point_bound_setup_s + point_bound_cap_multiple x max_time_per_point_s: chosen allowances for
// hangs, not for slow points, so they err long (docs/measuring.md, "Time estimates").
inline constexpr double point_bound_setup_s = 300;
inline constexpr double point_bound_cap_multiple = 20;
double default_point_time_bound_s(double max_time_per_point_s);

// How long past its bound a point may take to come back before it counts as stuck: the bound
// again, and at least point_stuck_least_grace_s, a chosen margin for a single sample or the
// validation that was under way as the bound passed.
inline constexpr double point_stuck_least_grace_s = 30;
double point_stuck_grace_s(double bound_s);

// Thrown by PointWatchdog::check between samples; what() is the point's recorded reason.
struct PointTimeBoundExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PointWatchdog {
 public:
  // Called on the watchdog's thread with the point that has run past `bound_s + grace_s`; the point
  // is still running on its own thread, which has not touched the results since it began. In a
  // run it records the point and ends the process; once it returns, that point is not watched
  // any longer.
  using OnStuck = std::function<void(const PlannedPoint&)>;

  PointWatchdog(double bound_s, double grace_s, OnStuck on_stuck);
  ~PointWatchdog();
  PointWatchdog(const PointWatchdog&) = delete;
  PointWatchdog& operator=(const PointWatchdog&) = delete;

  double bound_s() const { return bound_s_; }
  double grace_s() const { return grace_s_; }

  // Watches `point` (kept by reference) from now until end(). One point at a time.
  void begin(const PlannedPoint& point);
  // The point has come back. Waits while on_stuck runs for it, so a point that comes back just
  // as it is recorded stuck is not also recorded by its own thread.
  void end();
  // Throws PointTimeBoundExceeded once the watched point has run past the bound.
  void check() const;

 private:
  void watch();

  using clock = std::chrono::steady_clock;
  const double bound_s_, grace_s_;
  const OnStuck on_stuck_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  const PlannedPoint* point_ = nullptr;  // the watched point; null between points
  clock::time_point began_{};
  bool quit_ = false;
  std::thread thread_;
};

// Watches one point for the scope it lives in; nothing when `watchdog` is null (no bound).
class PointWatch {
 public:
  PointWatch(PointWatchdog* watchdog, const PlannedPoint& point) : watchdog_(watchdog) {
    if (watchdog_) watchdog_->begin(point);
  }
  ~PointWatch() {
    if (watchdog_) watchdog_->end();
  }
  PointWatch(const PointWatch&) = delete;
  PointWatch& operator=(const PointWatch&) = delete;

 private:
  PointWatchdog* watchdog_;
};

}  // namespace lb
