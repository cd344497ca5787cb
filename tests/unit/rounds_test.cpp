// Interleaved rounds on synthetic rounds: the figure is the median of the clean rounds' medians,
// the other sample figures the round nearest it, the spread is over every round, and a point is
// contended only when no round was clean.
#include "harness/measure/rounds.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/measure/point_measurement.hpp"

namespace lb {
namespace {

SampleStats round_of(double median_ms, bool contended = false) {
  SampleStats s;
  s.samples = 10;
  s.median_s = s.min_s = s.max_s = s.mean_s = median_ms / 1e3;
  s.noise = 0.01;
  s.cpu_share = contended ? 0.4 : 1.0;
  s.contended = contended;
  return s;
}

TEST(Rounds, TheFigureIsTheMedianOfTheRoundsMedians) {
  const RoundsSummary s = combine_rounds({round_of(2.0), round_of(1.6), round_of(1.8)});
  EXPECT_DOUBLE_EQ(s.median_s, 1.8e-3);  // not the luckiest round's 1.6
  EXPECT_EQ(s.representative, 2u);
  EXPECT_NEAR(s.spread, (2.0 - 1.6) / 1.6, 1e-12);
  ASSERT_EQ(s.medians_s.size(), 3u);
  EXPECT_DOUBLE_EQ(s.medians_s[0], 2e-3);
  EXPECT_FALSE(s.contended);
}

TEST(Rounds, TwoRoundsGiveTheirMeanAndTheEarlierIsKeptOnATie) {
  const RoundsSummary s = combine_rounds({round_of(1.0), round_of(1.5)});
  EXPECT_DOUBLE_EQ(s.median_s, 1.25e-3);
  EXPECT_EQ(s.representative, 0u);
}

TEST(Rounds, OneRoundHasNoSpread) {
  const RoundsSummary s = combine_rounds({round_of(1.0)});
  EXPECT_EQ(s.representative, 0u);
  EXPECT_DOUBLE_EQ(s.median_s, 1e-3);
  EXPECT_EQ(s.spread, 0);
}

TEST(Rounds, AContendedRoundIsLeftOutWhileAnyRoundIsClean) {
  // A contended round's median may be low by a clock jump; the clean rounds' figure is kept,
  // and the spread still shows the disagreement.
  const RoundsSummary s = combine_rounds({round_of(0.5, true), round_of(1.0), round_of(1.2)});
  EXPECT_DOUBLE_EQ(s.median_s, 1.1e-3);
  EXPECT_EQ(s.representative, 1u);
  EXPECT_FALSE(s.contended);
  EXPECT_NEAR(s.spread, (1.2 - 0.5) / 0.5, 1e-12);
  EXPECT_EQ(s.contended_rounds, (std::vector<bool>{true, false, false}));
  EXPECT_NEAR(s.uncertainty, 0.2, 1e-12);  // the clean rounds' spread, the figure's own
}

TEST(Rounds, ContendedOnlyWhenNoRoundWasClean) {
  const RoundsSummary s = combine_rounds({round_of(3.0, true), round_of(2.0, true)});
  EXPECT_TRUE(s.contended);
  EXPECT_DOUBLE_EQ(s.median_s, 2.5e-3);
}

TEST(Rounds, NoRoundsIsAnError) { EXPECT_THROW(combine_rounds({}), std::invalid_argument); }

TEST(Rounds, ThePointKeepsTheMedianFigureAndTheNearestRoundsOtherFigures) {
  Point first;
  first.gflop = 2.0;
  first.bytes = 4e6;
  first.timing = round_of(2.0);
  std::vector<SampleStats> rounds = {round_of(2.0), round_of(1.0, true), round_of(1.6),
                                     round_of(1.75)};
  rounds[3].samples = 42;
  const Point p = with_rounds(first, rounds);
  ASSERT_TRUE(p.timing);
  EXPECT_DOUBLE_EQ(p.timing->median_s, 1.75e-3);  // of 2.0, 1.6 and 1.75; not the contended 1.0
  EXPECT_EQ(p.timing->best_round, 3u);
  EXPECT_EQ(p.timing->samples, 42);
  EXPECT_FALSE(p.timing->contended);
  EXPECT_EQ(p.timing->round_medians_s.size(), 4u);
  EXPECT_NEAR(p.timing->round_spread, 1.0, 1e-12);
  EXPECT_NEAR(p.tflops, 2.0 / 1.75e-3 / 1e3, 1e-9);
  EXPECT_NEAR(p.gbps, 4e6 / 1.75e-3 / 1e9, 1e-9);
}

// The run loop keeps the first round's combined record as that round: combining it again with a
// second round gives one canary slowdown per round, not the first record's list and more.
TEST(Rounds, EachRoundsCanarySlowdownOnceWhenTheFirstRoundIsACombinedRecord) {
  Point first;
  first.gflop = 1.0;
  first.bytes = 1.0;
  SampleStats one = round_of(2.0), two = round_of(2.1);
  one.canary_slowdown = 1.1, two.canary_slowdown = 1.6;
  one.canary_memory_slowdown = 1.2, two.canary_memory_slowdown = 2.0;
  first.timing = one;
  const Point after_one = with_rounds(first, {one});
  const Point after_two = with_rounds(after_one, {*after_one.timing, two});
  EXPECT_EQ(after_two.timing->round_canary_slowdowns, (std::vector<double>{1.1, 1.6}));
  EXPECT_EQ(after_two.timing->round_canary_memory_slowdowns, (std::vector<double>{1.2, 2.0}));
  EXPECT_TRUE(with_rounds(first, {round_of(2.0)}).timing->round_canary_slowdowns.empty());
}

// round_of's rounds: 10 samples at 1% noise, a standard error of the median of
// sqrt(pi/2) x 0.01 / sqrt(10) = 0.396%, so in-round noise explains a spread up to
// 3 x sqrt(2) x 0.396% = 1.68%.
TEST(Rounds, TheStandardErrorOfAMedianComesFromItsNoiseAndSamples) {
  SampleStats r = round_of(1.0);
  r.noise = 0.1;
  r.samples = 100;
  EXPECT_NEAR(median_standard_error(r), 0.0125331, 1e-6);
  r.samples = 0;
  EXPECT_EQ(median_standard_error(r), 0);
}

TEST(Rounds, RoundsDisagreeOnlyBeyondWhatTheirNoiseExplains) {
  const RoundsSummary close = combine_rounds({round_of(1.0), round_of(1.005)});
  EXPECT_FALSE(close.disagree);
  EXPECT_FALSE(close.unstable);
  const RoundsSummary apart = combine_rounds({round_of(1.0), round_of(1.05)});
  EXPECT_TRUE(apart.disagree);
  EXPECT_FALSE(apart.unstable);  // their standard deviation, 3.4% of the mean, is below 10%
  const RoundsSummary wide = combine_rounds({round_of(1.0), round_of(1.3)});
  EXPECT_TRUE(wide.unstable);                   // 18% of the mean
  EXPECT_NEAR(wide.uncertainty, 0.3, 1e-12);    // the spread, not the 1% in-round noise
  EXPECT_NEAR(close.uncertainty, 0.01, 1e-12);  // the 1% noise, above the 0.5% spread
}

TEST(Rounds, OneSamplePerRoundHasNoNoiseSoAnySpreadDisagrees) {
  SampleStats a = round_of(50.5), b = round_of(33.6);
  a.samples = b.samples = 1;
  a.noise = b.noise = 0;
  const RoundsAgreement j =
      judge_rounds({a.median_s, b.median_s}, {median_standard_error(a), median_standard_error(b)});
  EXPECT_EQ(j.explained, 0);
  EXPECT_TRUE(j.disagree);
  EXPECT_TRUE(j.unstable);
  EXPECT_FALSE(judge_rounds({1e-3}, {0}).disagree);  // one round cannot disagree
}

TEST(Rounds, ContendedRoundsAreLeftOutOfTheJudgement) {
  // The clean rounds agree; the contended one, far off, is not counted.
  const RoundsSummary s = combine_rounds({round_of(1.0), round_of(3.0, true), round_of(1.01)});
  EXPECT_FALSE(s.disagree);
  EXPECT_NEAR(s.spread, 2.0, 1e-12);  // the spread still covers every round measured
}

TEST(Rounds, ExtraRoundsOnlyForDisagreeingPointsUpToTheCap) {
  const ExtraRoundsRule rule;  // 4 rounds
  const RoundsSummary apart = combine_rounds({round_of(1.0), round_of(1.2)});
  EXPECT_TRUE(needs_extra_round(apart, 2, rule));
  EXPECT_FALSE(needs_extra_round(apart, 1, rule));  // --rounds 1: no judgement asked for
  EXPECT_FALSE(needs_extra_round(combine_rounds({round_of(1.0), round_of(1.001)}), 2, rule));
  const RoundsSummary capped =
      combine_rounds({round_of(1.0), round_of(1.2), round_of(1.0), round_of(1.2)});
  EXPECT_FALSE(needs_extra_round(capped, 2, rule));
  EXPECT_TRUE(
      needs_extra_round(combine_rounds({round_of(1.0), round_of(1.2), round_of(1.0)}), 2, rule));
}

TEST(Rounds, OneCleanRoundAmongContendedOnesGetsAnother) {
  const ExtraRoundsRule rule;
  // One clean round cannot disagree with itself, yet says nothing of a rerun.
  const RoundsSummary one_clean = combine_rounds({round_of(1.98), round_of(1.1, true)});
  EXPECT_FALSE(one_clean.disagree);
  EXPECT_TRUE(needs_extra_round(one_clean, 2, rule));
  // Two clean rounds that agree need none, whatever the contended one says.
  EXPECT_FALSE(needs_extra_round(
      combine_rounds({round_of(1.0), round_of(3.0, true), round_of(1.001)}), 2, rule));
  // Every round contended: all count, and they agree.
  EXPECT_FALSE(
      needs_extra_round(combine_rounds({round_of(1.0, true), round_of(1.001, true)}), 2, rule));
  EXPECT_FALSE(needs_extra_round(combine_rounds({round_of(1.98), round_of(1.1, true),
                                                 round_of(1.2, true), round_of(1.1, true)}),
                                 2, rule));  // the cap
}

}  // namespace
}  // namespace lb
