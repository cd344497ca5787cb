#pragma once
// Run progress on standard error: one line updated in place on a terminal, one plain line
// per point otherwise (logs, CI), nothing with --quiet. The ETA assumes the work still to do
// runs at the rate (GFLOP per second of wall time) seen so far over the points that ran.
#include <chrono>
#include <cstdio>
#include <string>

namespace lb {

class Progress {
 public:
  enum class Mode { terminal, lines, quiet };
  Progress(Mode mode, int total_points, double total_gflop, std::FILE* out = stderr);

  void point_done(const std::string& name, const std::string& status, double gflop);
  // A point measured again in an extra round (its rounds disagreed): counted apart from the
  // total, which cannot know how many there will be, and without an ETA (the extra rounds
  // have a time budget of their own).
  void extra_point_done(const std::string& name, const std::string& status);
  void finish();

  // "1m05s"; "?" for a negative or unknown duration.
  static std::string format_duration(double seconds);
  // Seconds left at the rate so far; negative when nothing is known yet.
  static double eta_seconds(double gflop_done, double gflop_total, double elapsed_s);

 private:
  Mode mode_;
  int total_, done_ = 0, extra_done_ = 0;
  double total_gflop_, done_gflop_ = 0;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace lb
