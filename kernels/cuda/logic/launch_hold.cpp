#include "kernels/cuda/logic/launch_hold.hpp"

#include <algorithm>

namespace lb::cuda::logic {

bool LaunchHold::record(std::uint64_t hold_ns, std::uint64_t enqueue_ns) {
  ++runs_;
  last_enqueue_ns_ = enqueue_ns;
  const bool clean = hold_ns > enqueue_ns;
  if (clean) {
    overruns_in_a_row_ = 0;
  } else {
    ++unclean_runs_;
    if (!stopped_ && ++overruns_in_a_row_ >= give_up_after) stopped_ = true;
  }
  hold_ns_ = std::clamp(margin * enqueue_ns, min_hold_ns, max_hold_ns);
  return clean;
}

std::vector<std::pair<std::string, std::string>> LaunchHold::notes() const {
  std::vector<std::pair<std::string, std::string>> notes;
  if (stopped_) {
    notes.emplace_back("launch_hold",
                       "off: the launch kept the host waiting for the GPU, so the "
                       "times include the host's launch latency");
  } else {
    notes.emplace_back("launch_hold", "on: the GPU waited " + std::to_string(margin) +
                                          "x the host's enqueue time before each start event");
    notes.emplace_back("launch_hold_us", std::to_string(hold_ns_ / 1000));
  }
  notes.emplace_back("host_enqueue_us", std::to_string(last_enqueue_ns_ / 1000));
  notes.emplace_back("launch_hold_unclean_runs",
                     std::to_string(unclean_runs_) + " of " + std::to_string(runs_));
  return notes;
}

}  // namespace lb::cuda::logic
