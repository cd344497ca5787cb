#include "kernels/cuda/logic/autotune.hpp"

#include <algorithm>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/logic/device_rules.hpp"

namespace lb::cuda::logic {

namespace {

// The fastest candidate that ran and whose output steps.rejects_output accepts; those rejected on
// the way are added to `summary`.
std::optional<std::size_t> fastest_accepted(const std::vector<double>& medians,
                                            const AutotuneSteps& steps, std::string& summary) {
  if (!steps.rejects_output) return fastest(medians);
  std::vector<std::size_t> by_time;
  for (std::size_t i = 0; i < medians.size(); ++i)
    if (medians[i] != failed_time) by_time.push_back(i);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::size_t a, std::size_t b) { return medians[a] < medians[b]; });
  for (const std::size_t i : by_time) {
    steps.select(i);
    steps.poison_output();
    const auto why = steps.rejects_output(i);
    if (!why) return i;
    summary += "; " + steps.label(i) + " fails validation: " + *why;
  }
  return std::nullopt;
}

}  // namespace

std::size_t autotune(std::size_t count, const AutotuneSteps& steps, std::string& summary) {
  std::vector<double> medians;
  for (std::size_t i = 0; i < count; ++i) {
    steps.select(i);
    steps.reset_timing();
    std::string result;
    try {
      steps.launch();
      std::vector<double> times;
      for (int r = 0; r < autotune_runs; ++r) times.push_back(steps.time_once());
      medians.push_back(median(times));
      result = std::to_string(medians.back() * 1e3) + " ms";
    } catch (const LibraryError& e) {
      medians.push_back(failed_time);
      result = std::string("failed: ") + e.what();
    }
    summary += (summary.empty() ? "" : "; ") + steps.label(i) + " " + result;
  }
  const auto best = fastest_accepted(medians, steps, summary);
  if (!best) throw LibraryError("no candidate ran and passed validation: " + summary);
  steps.select(*best);
  steps.reset_timing();
  steps.poison_output();
  return *best;
}

std::string choice_note(AlgoChoice algo, const std::string& named) {
  if (!named.empty()) return "named";
  return algo == AlgoChoice::autotune ? "autotune" : "heuristic";
}

std::optional<std::size_t> named_candidate(const std::vector<std::string>& implementations,
                                           const std::string& named, const std::string& library) {
  if (named.empty()) return std::nullopt;
  std::string offered;
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    if (implementations[i] == named) return i;
    offered += (offered.empty() ? "" : "; ") + implementations[i];
  }
  throw Unsupported(library + " no longer offers " + named + " (it offers " +
                    (offered.empty() ? "nothing" : offered) + ")");
}

}  // namespace lb::cuda::logic
