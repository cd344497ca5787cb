#pragma once
// Run-time state of an out-of-memory sweep (Plan::sweep_until_oom): pure, no backend asked.
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "harness/plan/plan.hpp"
#include "harness/results/point.hpp"

namespace lb {

// The measuring session's memory of out-of-memory batches during a sweep: the first batch that ran
// out of memory per model/device/precision/pass. A larger batch of the same needs at least as much
// memory, so it is not run but recorded as oom with oom_skip_reason().
class OomSweep {
 public:
  void record_oom(const PlannedPoint& point);
  void record_oom(const Point& point);  // e.g. from a resumed results file
  // The smallest batch that ran out of memory for this point's model/device (and backend)/
  // precision/pass, when it is smaller than the point's batch (the point need not run); else
  // nullopt.
  std::optional<int> smaller_oom_batch(const PlannedPoint& point) const;

 private:
  using Key = std::tuple<std::string, std::string, Precision, Pass>;
  void record(Key key, int batch);
  std::map<Key, int> first_oom_;
};

// "out of memory at batch 256 already; larger batches are not run".
std::string oom_skip_reason(int first_oom_batch);

}  // namespace lb
