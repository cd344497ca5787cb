#pragma once
// Autotuning's rule, apart from the timing (pure, unit-tested): which candidate to keep from
// their times over interleaved rounds, and how the notes state them.
#include <cstddef>
#include <string>
#include <vector>

namespace lb::onednn {

// Every candidate is timed this many times, the rounds interleaved (A B C, A B C, ...), so that
// a slow spell of a busy machine falls on all of them rather than on one.
constexpr int autotune_rounds = 3;
// Another candidate replaces oneDNN's first choice only when its best time is faster than the
// first choice's by more than this fraction: a smaller lead is within a busy machine's noise.
constexpr double autotune_margin = 0.03;

// The candidate to keep: seconds[i] holds candidate i's times, one per round; candidate 0 is
// oneDNN's first choice. The fastest best time among those that beat candidate 0's best by more
// than `margin`, else 0.
std::size_t autotune_pick(const std::vector<std::vector<double>>& seconds, double margin);

// "NAME best 0.512 ms, spread 4.1% over 3 rounds": a candidate's best time and the spread of its
// rounds, (slowest - fastest) / fastest.
std::string candidate_text(const std::string& name, const std::vector<double>& seconds);

}  // namespace lb::onednn
