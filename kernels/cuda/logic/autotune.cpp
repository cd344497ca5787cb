#include "kernels/cuda/logic/autotune.hpp"

#include <vector>

#include "harness/backend.hpp"
#include "kernels/cuda/logic/device_rules.hpp"

namespace lb::cuda::logic {

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
  const auto best = fastest(medians);
  if (!best) throw LibraryError("every candidate failed to run: " + summary);
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
