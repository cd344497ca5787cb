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
  s.uncertainty = std::max(rounds[s.representative].noise, agreement.spread);
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

}  // namespace lb
