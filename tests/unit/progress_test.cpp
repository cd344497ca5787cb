#include "harness/measure/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

namespace lb {
namespace {

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(Progress::format_duration(5.4), "5s");
  EXPECT_EQ(Progress::format_duration(65), "1m05s");
  EXPECT_EQ(Progress::format_duration(3725), "1h02m");
  EXPECT_EQ(Progress::format_duration(-1), "?");
}

TEST(Progress, EtaFollowsTheRateSoFar) {
  // 10 of 40 GFLOP in 2 s: 5 GFLOP/s, so 30 GFLOP take 6 s more.
  EXPECT_DOUBLE_EQ(Progress::eta_seconds(10, 40, 2), 6);
  EXPECT_LT(Progress::eta_seconds(0, 40, 2), 0);  // nothing known yet
}

std::string written(Progress::Mode mode, const std::function<void(Progress&)>& use, int total,
                    double gflop) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(mode, total, gflop, f);
    use(p);
    p.finish();
  }
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

TEST(Progress, OnePlainLinePerPointWithoutATerminal) {
  const std::string text = written(
      Progress::Mode::lines,
      [](Progress& p) {
        p.point_done("m/a", "ok", 1);
        p.point_done("m/b", "unsupported", 1);
      },
      2, 2);
  EXPECT_NE(text.find("[1/2] m/a ok"), std::string::npos) << text;
  EXPECT_NE(text.find("[2/2] m/b unsupported"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  // The refused point's work left the total: nothing remains, so the ETA is 0 s.
  EXPECT_NE(text.find("ETA 0s)\n", text.find("[2/2]")), std::string::npos) << text;
}

TEST(Progress, ExtraRoundsAreCountedApartFromTheTotal) {
  const std::string text = written(
      Progress::Mode::lines,
      [](Progress& p) {
        p.point_done("m/a round 2", "ok", 1);
        p.extra_point_done("m/a round 3", "ok");
        p.extra_point_done("m/a round 4", "ok");
      },
      1, 1);
  EXPECT_NE(text.find("[1/1] m/a round 2 ok"), std::string::npos) << text;
  EXPECT_NE(text.find("[extra 1] m/a round 3 ok (elapsed "), std::string::npos) << text;
  EXPECT_NE(text.find("[extra 2] m/a round 4 ok"), std::string::npos) << text;
  EXPECT_EQ(text.find("[2/1]"), std::string::npos) << "the total is never passed";
}

TEST(Progress, QuietWritesNothing) {
  EXPECT_TRUE(written(
                  Progress::Mode::quiet, [](Progress& p) { p.point_done("m/a", "ok", 1); }, 1, 1)
                  .empty());
}

}  // namespace
}  // namespace lb
