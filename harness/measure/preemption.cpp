#include "harness/measure/preemption.hpp"

#include <chrono>

namespace lb {

bool preempted(const CpuSample& s) {
  if (s.wall_s <= 0 || s.threads < 1) return false;
  const bool no_thread_ran = s.cpu_s < preempted_below_share * s.wall_s;
  const double share = s.cpu_s / (s.wall_s * s.threads);
  const bool waited_for_a_core = s.run_queue_wait_s > (1 - preempted_below_share) * s.wall_s;
  // A share below 1 alone has harmless causes (a worker asleep during a one-thread step): only
  // with an involuntary switch does it mean a thread was taken off its core.
  return waited_for_a_core || no_thread_ran ||
         (s.involuntary_switches != 0 && share < preempted_below_share);
}

CheckedRun PreemptionCheck::run(const std::function<double()>& timed) const {
  if (!usage) return {timed(), 0, 0, false};
  const CpuReading before = usage();
  const auto t0 = std::chrono::steady_clock::now();
  const double seconds = timed();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const CpuReading after = usage();
  const long long switches = before.involuntary_switches < 0 || after.involuntary_switches < 0
                                 ? -1
                                 : after.involuntary_switches - before.involuntary_switches;
  const double cpu = after.cpu_s - before.cpu_s;
  const double waited = before.run_queue_wait_s < 0 || after.run_queue_wait_s < 0
                            ? -1
                            : after.run_queue_wait_s - before.run_queue_wait_s;
  return {seconds, wall, cpu, preempted({wall, cpu, threads, switches, waited})};
}

}  // namespace lb
