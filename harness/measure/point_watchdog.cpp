#include "harness/measure/point_watchdog.hpp"

#include <algorithm>
#include <sstream>

namespace lb {

double default_point_time_bound_s(double max_time_per_point_s) {
  return point_bound_setup_s + point_bound_cap_multiple * max_time_per_point_s;
}

double point_stuck_grace_s(double bound_s) { return std::max(bound_s, point_stuck_least_grace_s); }

PointWatchdog::PointWatchdog(double bound_s, double grace_s, OnStuck on_stuck)
    : bound_s_(bound_s),
      grace_s_(grace_s),
      on_stuck_(std::move(on_stuck)),
      thread_([this] { watch(); }) {}

PointWatchdog::~PointWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void PointWatchdog::begin(const PlannedPoint& point) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    point_ = &point;
    began_ = clock::now();
  }
  changed_.notify_all();
}

void PointWatchdog::end() {
  {
    std::lock_guard<std::mutex> lock(mutex_);  // held by the watchdog while on_stuck runs
    point_ = nullptr;
  }
  changed_.notify_all();
}

void PointWatchdog::check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!point_ || std::chrono::duration<double>(clock::now() - began_).count() <= bound_s_) return;
  std::ostringstream why;
  why << "exceeded the point time bound of " << bound_s_
      << " s (--point-timeout); stopped between samples";
  throw PointTimeBoundExceeded(why.str());
}

void PointWatchdog::watch() {
  const auto stuck_after = std::chrono::duration_cast<clock::duration>(
      std::chrono::duration<double>(bound_s_ + grace_s_));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (!point_) {
      changed_.wait(lock);
      continue;
    }
    const clock::time_point stuck_at = began_ + stuck_after;
    if (clock::now() < stuck_at) {
      changed_.wait_until(lock, stuck_at);  // woken early by end(), begin() or the destructor
      continue;
    }
    on_stuck_(*point_);  // under the lock: the point's own end() waits for it
    point_ = nullptr;
  }
}

}  // namespace lb
