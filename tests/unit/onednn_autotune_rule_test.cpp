// The oneDNN backend's autotuning rule: the first choice stays unless another candidate's best
// over the interleaved rounds beats it by more than the margin, in most rounds; the notes' text of
// a candidate.
#include <gtest/gtest.h>

#include <random>

#include "kernels/onednn/onednn_autotune_rule.hpp"

namespace lb::onednn {
namespace {

TEST(OnednnAutotuneRule, TheFirstChoiceStaysUnlessAnotherWinsByMoreThanTheMargin) {
  // Candidate 1 is 2% faster at its best: within the 3% margin, the first choice stays.
  EXPECT_EQ(autotune_pick({{1.0, 1.2, 1.1}, {0.98, 0.99, 1.5}}, 0.03), 0u);
  // 5% faster at its best and faster in 2 of 3 rounds: it replaces the first choice.
  EXPECT_EQ(autotune_pick({{1.0, 1.2, 1.1}, {1.3, 0.95, 1.05}}, 0.03), 1u);
  // 5% faster at its best but in one round only, slower in the others: a lucky round.
  EXPECT_EQ(autotune_pick({{1.0, 1.2, 1.1}, {1.3, 0.95, 1.4}}, 0.03), 0u);
  // Of two clear winners the faster is kept.
  EXPECT_EQ(autotune_pick({{1.0}, {0.9}, {0.8}, {0.85}}, 0.03), 2u);
  // The best round counts, not the first: one slow spell does not decide.
  EXPECT_EQ(autotune_pick({{1.8, 1.0, 1.0}, {0.99, 0.99, 0.99}}, 0.03), 0u);
  EXPECT_EQ(autotune_pick({{1.0}}, 0.03), 0u);
  EXPECT_EQ(autotune_pick({{1.0}, {0.98}}, 0.0), 1u);
}

TEST(OnednnAutotuneRule, OnlyTheFirstChoiceAndCandidatesWithinTwiceTheFastestContendAfterRoundOne) {
  EXPECT_EQ(autotune_contenders({5.0, 1.0, 2.0, 2.1, 9.0}),
            (std::vector<bool>{true, true, true, false, false}));
  // A candidate timed in round 1 only cannot win against a first choice timed in 3.
  EXPECT_EQ(autotune_pick({{1.0, 1.0, 1.0}, {0.5}}, 0.03), 0u);
  EXPECT_EQ(autotune_pick({{1.0, 1.0, 1.0}, {0.5, 0.5}}, 0.03), 1u);
}

TEST(OnednnAutotuneRule, OnlyCandidatesThatCanStillWinAreTimedAgain) {
  // After round 1: the first choice and the candidates within twice the fastest.
  EXPECT_EQ(autotune_next_round({{5.0}, {1.0}, {2.0}, {2.1}, {9.0}}),
            (std::vector<bool>{true, true, true, false, false}));
  // After round 2: candidate 1 lost both rounds to the first choice and cannot win most of 3;
  // candidate 2 won one and is timed again.
  EXPECT_EQ(autotune_next_round({{1.0, 1.0}, {1.1, 1.2}, {0.9, 1.1}}),
            (std::vector<bool>{true, false, true}));
  // No candidate can win: the first choice's third round would change nothing.
  EXPECT_EQ(autotune_next_round({{1.0, 1.0}, {1.1, 1.2}, {3.0}}),
            (std::vector<bool>{false, false, false}));
  // Every candidate beyond twice the fastest after round 1: only the first choice is left.
  EXPECT_EQ(autotune_next_round({{1.0}, {2.5}}), (std::vector<bool>{false, false}));
  // Every round done.
  EXPECT_EQ(autotune_next_round({{1.0, 1.0, 1.0}, {0.9, 0.9, 0.9}}),
            (std::vector<bool>{false, false}));
}

// Timing only the candidates autotune_next_round names picks what timing every contender in
// every round picks: seconds[i][r] stand for what candidate i would measure in round r.
TEST(OnednnAutotuneRule, DroppingCandidatesThatCannotWinNeverChangesThePick) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> time(1.0, 2.4);
  int changed_rounds = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t count = 2 + trial % 6;
    std::vector<std::vector<double>> would(count);
    for (auto& rounds : would)
      for (int r = 0; r < autotune_rounds; ++r) rounds.push_back(time(random));
    // Every contender in every round, the rule before early stops.
    std::vector<std::vector<double>> every(count);
    std::vector<double> first_round;
    for (std::size_t i = 0; i < count; ++i) first_round.push_back(would[i][0]);
    const std::vector<bool> contenders = autotune_contenders(first_round);
    for (std::size_t i = 0; i < count; ++i)
      every[i].assign(would[i].begin(), contenders[i] ? would[i].end() : would[i].begin() + 1);
    // Only what autotune_next_round asks for.
    std::vector<std::vector<double>> asked(count);
    std::vector<bool> next(count, true);
    for (std::size_t r = 0; next.front(); ++r) {
      for (std::size_t i = 0; i < count; ++i)
        if (next[i]) asked[i].push_back(would[i][r]);
      next = autotune_next_round(asked);
    }
    changed_rounds += asked.front().size() < every.front().size();
    ASSERT_EQ(autotune_pick(asked, autotune_margin), autotune_pick(every, autotune_margin))
        << "trial " << trial;
  }
  EXPECT_GT(changed_rounds, 1000);  // the early stop was exercised
}

TEST(OnednnAutotuneRule, EmptyTimesAreALogicError) {
  EXPECT_THROW(autotune_next_round({}), std::invalid_argument);
  EXPECT_THROW(autotune_next_round({{1.0}, {}}), std::invalid_argument);
  EXPECT_THROW(autotune_contenders({}), std::invalid_argument);
  EXPECT_THROW(autotune_pick({}, 0.03), std::invalid_argument);
  EXPECT_THROW(autotune_pick({{1.0}, {}}, 0.03), std::invalid_argument);
}

TEST(OnednnAutotuneRule, ACandidateIsStatedWithItsBestTimeAndSpread) {
  EXPECT_EQ(candidate_text("jit:avx512_core (direct)", {0.0012, 0.001, 0.00105}),
            "jit:avx512_core (direct) best 1 ms, spread 20.00% over 3 rounds");
  EXPECT_EQ(candidate_text("brg", {0.0005125}), "brg best 0.5125 ms, spread 0.00% over 1 round");
}

}  // namespace
}  // namespace lb::onednn
