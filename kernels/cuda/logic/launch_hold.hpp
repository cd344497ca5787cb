#pragma once
// Keeping the host's launch latency out of GPU timings: a kernel holds the stream while the host
// enqueues start event, launch and stop event, so the events bracket the GPU's work alone
// (docs/measuring.md, "Clocks", says why). Pure logic, unit-tested everywhere.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lb::cuda::logic {

class LaunchHold {
 public:
  // The hold is this many times the last host enqueue time, within [min_hold_ns, max_hold_ns]:
  // a margin for the enqueue time's jitter, and a bound on the GPU time a hold may waste.
  static constexpr std::uint64_t margin = 4;
  static constexpr std::uint64_t min_hold_ns = 20'000;
  static constexpr std::uint64_t max_hold_ns = 10'000'000;
  // After this many runs in a row whose enqueue outlasted the hold, the launch is taken to block
  // the host until the GPU is idle (holding would then only deadlock into the hold's length):
  // holding stops, and the notes say that the times include the host's launch latency.
  static constexpr int give_up_after = 3;

  // The hold for the next run in nanoseconds; 0 once holding stopped.
  std::uint64_t next_hold_ns() const { return stopped_ ? 0 : hold_ns_; }

  // Records one run: the hold it was given and the host's time from enqueueing the hold to having
  // enqueued the stop event. Returns true when the run's timing is clean (the hold outlasted the
  // enqueue), false when the start event may have fired before the launch was enqueued.
  bool record(std::uint64_t hold_ns, std::uint64_t enqueue_ns);

  // Whether a run that was not clean should be measured again (holding has not stopped).
  bool retry() const { return !stopped_; }

  // "launch_hold*" notes for the results file.
  std::vector<std::pair<std::string, std::string>> notes() const;

 private:
  std::uint64_t hold_ns_ = min_hold_ns;
  std::uint64_t last_enqueue_ns_ = 0;
  std::int64_t runs_ = 0, unclean_runs_ = 0;
  int overruns_in_a_row_ = 0;
  bool stopped_ = false;
};

}  // namespace lb::cuda::logic
