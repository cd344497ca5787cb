#pragma once
// The pre-emption rule: whether a compute thread lost its core during a timed sample, judged
// from the process's CPU time, involuntary switches and run-queue wait read around it. Pure
// logic but for the readings, unit-tested on synthetic samples.
#include <functional>

#include "harness/api/checked_run.hpp"

namespace lb {

// One timed sample as the CPU saw it: its wall time, the CPU time all of the process's threads
// got during it, the compute threads, and involuntary context switches (-1: not counted).
struct CpuSample {
  double wall_s = 0, cpu_s = 0;
  int threads = 1;
  long long involuntary_switches = -1;
  double run_queue_wait_s = -1;  // the threads' time runnable but without a core; -1: unknown
};

// A sample is pre-empted when its threads waited for a core for over (1 - this) of its wall
// time, got under this x wall of CPU time, or had an involuntary switch and under this x wall x
// threads (docs/measuring.md, "Busy machines", gives the reasoning behind each signal).
inline constexpr double preempted_below_share = 0.9;
bool preempted(const CpuSample& s);

// A round is contended when its compute threads together got under this share of their cores
// over its timed samples (CPU time / (wall x threads)), even with no sample judged pre-empted: a
// thread that keeps losing a few microseconds of each short sample is caught only summed up
// (docs/measuring.md, "Busy machines", has the quiet and busy shares this was set from).
inline constexpr double contended_below_share = 0.8;

// The check around timed calls: `usage` reads the process's CPU time, switches and run-queue wait
// (platform::process_cpu_usage) before and after each; without it nothing is read. `threads` 0
// (GPU points, timed by device events): the CPU time is read, never judged.
struct PreemptionCheck {
  struct CpuReading {
    double cpu_s = 0;
    long long involuntary_switches = -1;
    double run_queue_wait_s = -1;
  };
  std::function<CpuReading()> usage;
  int threads = 1;

  // One call of `timed` (returning its own timing in seconds) with the readings around it.
  CheckedRun run(const std::function<double()>& timed) const;
};

}  // namespace lb
