#pragma once
// A timed call as the runner's pre-emption check saw it (harness/measure/preemption.hpp): the
// type a backend's case options carry, so that autotuning can keep the runs no other program
// interrupted.

namespace lb {

struct CheckedRun {
  double seconds = 0;  // what the call returned: its own timing
  double wall_s = 0, cpu_s = 0;
  bool preempted = false;
};

}  // namespace lb
