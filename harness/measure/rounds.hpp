#pragma once
// Interleaved rounds: `run` visits every point of the plan once per round, so that load that
// comes and goes spoils one round of a point rather than its result. A point's figure is the
// median of its rounds' medians (those measured clean), and the spread between its rounds'
// medians is a second noise figure beside the in-round one. Pure logic, unit-tested.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/util/stats.hpp"

namespace lb {

struct RoundsSummary {
  double median_s = 0;  // the point's figure: the median of the counted rounds' medians
  // The counted round whose median is nearest that figure (the earlier on a tie): the point
  // keeps its other sample figures (samples, min, max, noise).
  std::size_t representative = 0;
  // (slowest round median - fastest) / fastest over every round measured; 0 for one round.
  double spread = 0;
  std::vector<double> medians_s;       // each round's median, in round order
  std::vector<bool> contended_rounds;  // and whether it was contended
  // No round was measured clean: every round is then counted.
  bool contended = false;
  // The counted rounds against each other (judge_rounds): whether their medians differ by more
  // than their in-round noise explains, and whether widely (`unstable`).
  bool disagree = false, unstable = false;
  // The figure's relative uncertainty: the larger of the in-round noise and the spread of the
  // counted rounds, those the figure is the median of (a contended round left out of the figure
  // says nothing of how well it is known).
  double uncertainty = 0;
};

// How far the counted rounds' medians differ, against what their in-round noise explains.
struct RoundsAgreement {
  double spread = 0;      // (slowest counted round median - fastest) / fastest
  double explained = 0;   // the largest spread the in-round noise explains
  double between_sd = 0;  // sample standard deviation of the medians / their mean (0 for one)
  bool disagree = false;  // spread > explained
  bool unstable = false;  // disagree, and between_sd at least unstable_between_sd
};
// The relative standard error of a round's median from its in-round noise: sqrt(pi / 2) x
// noise / sqrt(samples), the median's for normal samples.
double median_standard_error(const SampleStats& round);
// explained = 3 x sqrt(2) x the largest standard error of a counted round's median: two medians
// of one figure differ by more only about 0.3% of the time (normal errors, three standard
// errors of their difference). One sample per round has no noise figure: any spread disagrees.
RoundsAgreement judge_rounds(const std::vector<double>& medians_s,
                             const std::vector<double>& standard_errors);
// pyperf's `check` warns that a benchmark "may be unstable" when its standard deviation is at
// least 10% of its mean; layerbench applies it to the rounds' medians.
inline constexpr double unstable_between_sd = 0.10;

// Extra rounds: after the suite's rounds, a point whose counted rounds disagree is measured again
// in later passes, up to `max_rounds` in all, while the extra passes have taken at most
// `budget_fraction` of the time the suite's rounds took (rounds.cpp says why both).
struct ExtraRoundsRule {
  int max_rounds = 4;
  double budget_fraction = 0.10;
};
// Whether a point with these rounds gets another: the suite asked for at least 2 rounds (one
// round cannot disagree), it has fewer than the cap, and they disagree or only one of them was
// clean (the others contended), which leaves nothing to judge its figure against.
bool needs_extra_round(const RoundsSummary& rounds, int suite_rounds, const ExtraRoundsRule& rule);

// Combines one point's rounds (at least one; throws std::invalid_argument for none). A
// contended round counts only when every round is: a clean round's figure is trusted over a
// contended one, whose samples may hold a clock jump. The median rather than the fastest
// round: the luckiest of several draws is biased low and varies more from run to run.
RoundsSummary combine_rounds(const std::vector<SampleStats>& rounds);

}  // namespace lb
