#pragma once
// Interleaved rounds: `run` visits every point of the plan once per round, so that load that
// comes and goes spoils one round of a point rather than its result. A point's figure is the
// median of its rounds' medians (those measured clean), and the spread between its rounds'
// medians is a second noise figure beside the in-round one. Pure logic, unit-tested.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/stats.hpp"

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
};

// Combines one point's rounds (at least one; throws std::invalid_argument for none). A
// contended round counts only when every round is: a clean round's figure is trusted over a
// contended one, whose samples may hold a clock jump. The median rather than the fastest
// round: the luckiest of several draws is biased low and varies more from run to run.
RoundsSummary combine_rounds(const std::vector<SampleStats>& rounds);

// How a suite measures when the flags do not say: its rounds (--rounds), its sampling time per
// point and round (--max-time-per-point, and the minimum before the noise target may stop it)
// and the least time each visit warms up for (Sampler::warmup_min_s). rounds.cpp gives the
// measurements behind each choice.
struct SuiteSampling {
  int rounds = 2;
  double max_time_s = 1.0, min_time_s = 0.1;
  double warmup_min_s = 0.05;
};
SuiteSampling suite_sampling(const std::string& suite);

}  // namespace lb
