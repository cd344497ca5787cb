#include "harness/measure/rounds.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace lb {

RoundsSummary combine_rounds(const std::vector<SampleStats>& rounds) {
  if (rounds.empty()) throw std::invalid_argument("combine_rounds: no rounds");
  RoundsSummary s;
  s.contended =
      std::all_of(rounds.begin(), rounds.end(), [](const SampleStats& r) { return r.contended; });
  std::vector<std::size_t> counted;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    s.medians_s.push_back(rounds[i].median_s);
    s.contended_rounds.push_back(rounds[i].contended);
    if (!rounds[i].contended || s.contended) counted.push_back(i);
  }
  std::vector<double> counted_medians, standard_errors;
  for (std::size_t i : counted) {
    counted_medians.push_back(rounds[i].median_s);
    standard_errors.push_back(median_standard_error(rounds[i]));
  }
  s.median_s = median(counted_medians);
  s.representative = counted.front();
  for (std::size_t i : counted)
    if (std::abs(rounds[i].median_s - s.median_s) <
        std::abs(rounds[s.representative].median_s - s.median_s))
      s.representative = i;
  const auto [lo, hi] = std::minmax_element(s.medians_s.begin(), s.medians_s.end());
  s.spread = *lo > 0 ? (*hi - *lo) / *lo : 0;
  const RoundsAgreement agreement = judge_rounds(counted_medians, standard_errors);
  s.disagree = agreement.disagree;
  s.unstable = agreement.unstable;
  s.uncertainty = std::max(rounds[s.representative].noise, s.spread);
  return s;
}

double median_standard_error(const SampleStats& round) {
  if (round.samples < 1) return 0;
  return std::sqrt(std::acos(-1.0) / 2) * round.noise / std::sqrt(double(round.samples));
}

RoundsAgreement judge_rounds(const std::vector<double>& medians_s,
                             const std::vector<double>& standard_errors) {
  RoundsAgreement a;
  if (medians_s.size() < 2) return a;
  const auto [lo, hi] = std::minmax_element(medians_s.begin(), medians_s.end());
  a.spread = *lo > 0 ? (*hi - *lo) / *lo : 0;
  const double worst_error =
      standard_errors.empty() ? 0
                              : *std::max_element(standard_errors.begin(), standard_errors.end());
  a.explained = 3 * std::sqrt(2.0) * worst_error;
  double mean = 0;
  for (double m : medians_s) mean += m / double(medians_s.size());
  double squares = 0;
  for (double m : medians_s) squares += (m - mean) * (m - mean);
  a.between_sd = mean > 0 ? std::sqrt(squares / double(medians_s.size() - 1)) / mean : 0;
  a.disagree = a.spread > a.explained;
  a.unstable = a.disagree && a.between_sd >= unstable_between_sd;
  return a;
}

// The cap and the time budget (ExtraRoundsRule) are chosen in docs/measuring.md, "Rounds": 4
// rounds is the fewest with which compare.py's U test can reach p < 0.05.
bool needs_extra_round(const RoundsSummary& rounds, int suite_rounds, const ExtraRoundsRule& rule) {
  const auto clean =
      std::count(rounds.contended_rounds.begin(), rounds.contended_rounds.end(), false);
  const bool one_clean_round = !rounds.contended && clean < 2;
  return suite_rounds >= 2 && int(rounds.medians_s.size()) < rule.max_rounds &&
         (rounds.disagree || one_clean_round);
}

// Rounds: 2 for every suite, measured on the 2-core test machine (quick suite, 2 threads, 284
// timed points): a quiet run and a run with a busy loop for 25 s of its 111 s (a build or a
// package install coming and going), both of 3 rounds, each point's figure recomputed as a run
// of 1, 2 or 3 rounds would have kept it (then its fastest clean round) and compared with the
// quiet run's. One round: 60 points
// more than 1.1x off, 39 more than 1.5x (all flagged contended), geometric mean 1.17. Two: 8
// and 1, geomean 1.007. Three: 6 and 1, geomean 1.001. The third round cost 28 s more (a quiet
// run of 3 rounds took 104 s, of 2 rounds 77-80 s) for 2 points fewer past 1.1x.
// Sampling per round: 1 s, as before rounds, for the standard and full suites. The quick suite
// stops at 0.05 s (at least 0.02 s) and warms up for at least 0.02 s: in a quick run at the 1 s
// cap (2 threads, cold caches) the median point's sample took 0.6 ms and its in-round noise was
// 7.6% (1.4826 x MAD / median; 90th percentile 14%), so 0.02 s still gives the median point
// about 33 samples, a standard error of its median near 1.25 x 7.6% / sqrt(33) = 1.7% (1.0% at
// the 0.05 s cap), well inside the differences the quick suite is for (BF16 against FP32: 1.75x
// on ResNet-50; oneDNN against OpenBLAS: 1.29x on ViT-B/16's out_proj, quiet). With a 0.1 s cap,
// 0.05 s minimum and 0.05 s warm-up the quick suite's sampling took 83.5 s of 198 s; now 41.9 s
// of 80 s.
SuiteSampling suite_sampling(const std::string& suite) {
  if (suite == "quick") return {2, 0.05, 0.02, 0.02};
  return {2, 1.0, 0.1, 0.05};
}

}  // namespace lb
