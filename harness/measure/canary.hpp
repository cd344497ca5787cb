#pragma once
// The canary: a fixed piece of work timed on every compute thread at once, before a round's warm-up
// and just after its timed samples. Its time against the quiet speed this run has seen says
// whether the machine itself was slow then: a VM's host can slow every vCPU (a busy sibling
// hyperthread, a lower clock) or its memory (another guest's traffic on the same memory
// controllers) while the guest still sees its full CPU share, which the pre-emption check
// (preemption.hpp) cannot see. docs/measuring.md, "Slow periods the guest does not see", has the
// figures the work and the threshold were set from.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lb {

// A round whose compute unit read more than this times the run's quiet speed was measured while
// the machine was slow: it is contended, like a round whose threads lost their cores. The
// memory unit is recorded against the same level but not judged: it flags too many rounds that
// ran at full speed to re-take rounds on. The level: docs/measuring.md, "The canary's threshold".
inline constexpr double canary_slow_above = 1.5;

// A reading's two units as multiples of their quiet times.
struct CanarySlowdown {
  double compute = 0, memory = 0;
};

// The readings of one canary unit over a run and the quiet speed they give. Pure logic,
// unit-tested.
class CanaryHistory {
 public:
  // Adds a reading (seconds) and returns its slowdown: the reading over the reference, with
  // the reading counted in it.
  double add(double seconds);
  // The 10th percentile of the readings, the fastest while there are fewer than 10: the
  // machine's quiet speed, which slow readings do not move while they are under 90% of the run
  // and one lucky reading moves little. 0 before any reading.
  double reference() const;
  std::size_t readings() const { return seconds_.size(); }

 private:
  std::vector<double> seconds_;
};

// One reading on `threads` threads at once, each the slowest thread's median of `units` runs:
// `compute_s` of arithmetic in registers (the floating-point pipes, as a GEMM's inner loop uses
// them), `memory_s` of reading a buffer just evicted from the caches into another, every thread
// starting together (memory bandwidth, as a cold memory-bound layer's threads use it).
// `buffers` holds one buffer per thread, kept between readings (grown on first use).
struct CanaryReading {
  double compute_s = 0, memory_s = 0;
};
CanaryReading take_canary_reading(int threads, std::vector<std::vector<std::uint64_t>>& buffers,
                                  int units = 5);

// What the run's canary saw, over every thread count it was read with.
struct CanarySummary {
  std::size_t readings = 0;
  std::size_t slow_readings = 0, memory_slow_readings = 0;  // over canary_slow_above
  double slowest = 0, memory_slowest = 0;                   // the largest slowdowns
  // The quiet times of a unit on the run's most used thread count.
  double compute_unit_s = 0, memory_unit_s = 0;
};

// The process's canary: per thread count (a unit on one thread and on two need not take the
// same time) a history of each unit, started with a few readings the first time. Thread-safe.
class MachineCanary {
 public:
  // A reading on `threads` threads, its units against their histories.
  CanarySlowdown slowdown(int threads);
  CanarySummary summary() const;

 private:
  struct PerThreads {
    int threads = 0;
    CanaryHistory compute, memory;
    std::vector<std::vector<std::uint64_t>> buffers;
    std::size_t slow = 0, memory_slow = 0;
    double slowest = 0, memory_slowest = 0;
  };
  CanarySlowdown add(PerThreads& entry, const CanaryReading& reading);
  mutable std::mutex mutex_;
  std::vector<PerThreads> entries_;
};
MachineCanary& machine_canary();

// The results file's record of it (context.machine_state.canary) and the run's line about it:
// how much of the run the machine was slow. Empty text when the canary was never read.
nlohmann::json to_json(const CanarySummary& s);
std::string canary_text(const CanarySummary& s);

}  // namespace lb
