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

std::vector<bool> autotune_next_round(const std::vector<std::vector<double>>& seconds) {
  if (seconds.empty() || seconds.front().empty())
    throw std::invalid_argument("autotune: no round timed");
  const std::vector<double>& first = seconds.front();
  const std::size_t done = first.size();
  std::vector<bool> next(seconds.size(), false);
  if (done >= static_cast<std::size_t>(autotune_rounds)) return next;
  std::vector<double> first_round;  // every candidate is timed in the first round
  for (const auto& s : seconds) {
    if (s.empty()) throw std::invalid_argument("autotune: a candidate with no time");
    first_round.push_back(s.front());
  }
  const std::vector<bool> contenders = autotune_contenders(first_round);
  for (std::size_t i = 1; i < seconds.size(); ++i) {
    if (seconds[i].size() != done || !contenders[i]) continue;  // dropped in an earlier round
    std::size_t won = 0;
    for (std::size_t r = 0; r < done; ++r) won += seconds[i][r] < first[r];
    const std::size_t left = static_cast<std::size_t>(autotune_rounds) - done;
    next[i] = 2 * (won + left) > static_cast<std::size_t>(autotune_rounds);
  }
  next[0] = std::find(next.begin() + 1, next.end(), true) != next.end();
  return next;
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
