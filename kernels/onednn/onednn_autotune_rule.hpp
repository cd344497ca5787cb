#pragma once
// Autotuning's rule, apart from the timing (pure, unit-tested): which candidate to keep from
// their times over interleaved rounds, and how the notes state them.
#include <cstddef>
#include <string>
#include <vector>

namespace lb::onednn {

// Every candidate is timed this many times, the rounds interleaved (A B C, A B C, ...), so that
// a slow spell of a busy machine falls on all of them rather than on one; a round's time is the
// median of its runs.
constexpr int autotune_rounds = 3;
// Another candidate replaces oneDNN's first choice only when its best time is faster than the
// first choice's by more than this fraction: a smaller lead is within a busy machine's noise.
constexpr double autotune_margin = 0.03;

// After the first round only the contenders are timed again: oneDNN's first choice, and every
// candidate at most this many times the fastest of the round (a busy machine can make one
// round 1.8 times another); the rest cannot win and would only add to the point's set-up time.
constexpr double autotune_contender_factor = 2.0;

// Which candidates to time in the later rounds, from their first round's times (index 0 is
// oneDNN's first choice, always kept).
std::vector<bool> autotune_contenders(const std::vector<double>& first_round);

// Which candidates to time in the next round, from their times so far (seconds[i]: candidate
// i's, one per round; candidate 0 is oneDNN's first choice and has every round so far). After
// the first round the contenders; after any round, only those that can still be faster than
// candidate 0 in most of the autotune_rounds rounds, as autotune_pick asks: one that lost the
// first two of three cannot. Candidate 0 is timed while another can still win; all false when
// none can, or every round is done: its time cannot change the pick.
std::vector<bool> autotune_next_round(const std::vector<std::vector<double>>& seconds);

// The candidate to keep: seconds[i] holds candidate i's times, one per round; candidate 0 is
// oneDNN's first choice. A candidate wins clearly when its best time beats candidate 0's best
// by more than `margin` and it was faster than candidate 0 in most of candidate 0's rounds (so one
// lucky round does not decide); the fastest best of those, else 0.
std::size_t autotune_pick(const std::vector<std::vector<double>>& seconds, double margin);

// "NAME best 0.512 ms, spread 4.1% over 3 rounds": a candidate's best time and the spread of its
// rounds, (slowest - fastest) / fastest.
std::string candidate_text(const std::string& name, const std::vector<double>& seconds);

}  // namespace lb::onednn
