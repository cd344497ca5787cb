#include "kernels/onednn/onednn_autotune_rule.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace lb::onednn {

namespace {

double best(const std::vector<double>& seconds) {
  if (seconds.empty()) throw std::invalid_argument("autotune: a candidate with no time");
  return *std::min_element(seconds.begin(), seconds.end());
}

}  // namespace

std::vector<bool> autotune_contenders(const std::vector<double>& first_round) {
  if (first_round.empty()) throw std::invalid_argument("autotune: no candidates");
  const double fastest = *std::min_element(first_round.begin(), first_round.end());
  std::vector<bool> contending(first_round.size());
  for (std::size_t i = 0; i < first_round.size(); ++i)
    contending[i] = i == 0 || first_round[i] <= autotune_contender_factor * fastest;
  return contending;
}

std::size_t autotune_pick(const std::vector<std::vector<double>>& seconds, double margin) {
  if (seconds.empty()) throw std::invalid_argument("autotune: no candidates");
  const double bar = best(seconds.front()) * (1.0 - margin);
  std::size_t pick = 0;
  double pick_s = bar;
  const auto& first = seconds.front();
  for (std::size_t i = 1; i < seconds.size(); ++i) {
    std::size_t rounds_won = 0;
    for (std::size_t r = 0; r < std::min(first.size(), seconds[i].size()); ++r)
      rounds_won += seconds[i][r] < first[r];
    if (const double s = best(seconds[i]); s < pick_s && 2 * rounds_won > first.size())
      pick = i, pick_s = s;
  }
  return pick;
}

std::string candidate_text(const std::string& name, const std::vector<double>& seconds) {
  const double fastest = best(seconds);
  const double slowest = *std::max_element(seconds.begin(), seconds.end());
  std::ostringstream text;
  text.precision(4);
  text << name << " best " << fastest * 1e3 << " ms, spread ";
  text.precision(2);
  text << std::fixed << 100.0 * (slowest - fastest) / fastest << "% over " << seconds.size()
       << (seconds.size() == 1 ? " round" : " rounds");
  return text.str();
}

}  // namespace lb::onednn
