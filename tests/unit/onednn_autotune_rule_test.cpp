// The oneDNN backend's autotuning rule: the first choice stays unless another candidate's best
// over the interleaved rounds beats it by more than the margin, in most rounds; the notes' text of
// a candidate.
#include <gtest/gtest.h>

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

TEST(OnednnAutotuneRule, EmptyTimesAreALogicError) {
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
