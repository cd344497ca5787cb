#include "harness/measure/rounds.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lb {

RoundsSummary combine_rounds(const std::vector<SampleStats>& rounds) {
  if (rounds.empty()) throw std::invalid_argument("combine_rounds: no rounds");
  RoundsSummary s;
  s.contended =
      std::all_of(rounds.begin(), rounds.end(), [](const SampleStats& r) { return r.contended; });
  bool found = false;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    s.medians_s.push_back(rounds[i].median_s);
    s.contended_rounds.push_back(rounds[i].contended);
    if (rounds[i].contended && !s.contended) continue;
    if (!found || rounds[i].median_s < rounds[s.best].median_s) s.best = i, found = true;
  }
  const auto [lo, hi] = std::minmax_element(s.medians_s.begin(), s.medians_s.end());
  s.spread = *lo > 0 ? (*hi - *lo) / *lo : 0;
  return s;
}

// Rounds: 2 for every suite. A second round is what lets a transient load (the loaded
// runs: medians up to 670x the quiet ones while a package installed) spoil one visit of a point
// instead of its figure, and what measures the spread between visits at all; each further round
// costs a full pass of sampling and of set-up again (context.time_split of a quick run on the
// 2-core test machine: preparation alone was about as long as sampling), for a smaller gain.
// Sampling per round: 1 s, as before rounds, for the standard and full suites. The quick suite
// stops at 0.1 s (at least 0.05 s): in a quick run at the 1 s cap (284 timed points, 2 threads,
// cold caches) the median point's sample took 0.6 ms and its in-round noise was 7.6% (1.4826 x
// MAD / median; 90th percentile 14%), so 0.1 s still gives the median point about 180 samples,
// a standard error of its median near 1.25 x 7.6% / sqrt(180) = 0.7%, and only 30 of the 284
// points fewer than 20 samples; the sampling of a round falls from about 230 s to 29 s.
SuiteSampling suite_sampling(const std::string& suite) {
  if (suite == "quick") return {2, 0.05, 0.02, 0.02};
  return {2, 1.0, 0.1, 0.05};
}

}  // namespace lb
