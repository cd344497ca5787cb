#include "harness/measure/oom_sweep.hpp"

#include <algorithm>

namespace lb {

void OomSweep::record(Key key, int batch) {
  auto [it, inserted] = first_oom_.emplace(std::move(key), batch);
  if (!inserted) it->second = std::min(it->second, batch);
}

void OomSweep::record_oom(const PlannedPoint& p) {
  record({p.model->name, keyed_device(p.device, p.backend), p.precision, p.pass}, p.batch);
}

void OomSweep::record_oom(const Point& p) {
  record({p.model, keyed_device(p.device, p.backend), p.precision, p.pass}, p.batch);
}

std::optional<int> OomSweep::smaller_oom_batch(const PlannedPoint& p) const {
  const auto it =
      first_oom_.find({p.model->name, keyed_device(p.device, p.backend), p.precision, p.pass});
  if (it == first_oom_.end() || it->second >= p.batch) return std::nullopt;
  return it->second;
}

std::string oom_skip_reason(int first_oom_batch) {
  return "out of memory at batch " + std::to_string(first_oom_batch) +
         " already; larger batches are not run";
}

}  // namespace lb
