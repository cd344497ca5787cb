// The RAPL reader (harness/machine/rapl.hpp) on a fake powercap folder the test writes; its
// counters are test data, not readings of any CPU.
#include "harness/machine/rapl.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace lb {
namespace {

namespace fs = std::filesystem;

class RaplTest : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("lb_rapl_" + std::to_string(::getpid()));
  void SetUp() override { fs::remove_all(root), fs::create_directories(root); }
  void TearDown() override { fs::remove_all(root); }
  void domain(const std::string& dir, const std::string& name, const std::string& energy,
              const std::string& max_range) {
    fs::create_directories(root / dir);
    std::ofstream(root / dir / "name") << name << "\n";
    if (!energy.empty()) std::ofstream(root / dir / "energy_uj") << energy << "\n";
    if (!max_range.empty()) std::ofstream(root / dir / "max_energy_range_uj") << max_range << "\n";
  }
};

TEST_F(RaplTest, FindsPackagesButNotTheirSubDomains) {
  domain("intel-rapl:1", "package-1", "2000", "262143328850");
  domain("intel-rapl:0", "package-0", "1000", "262143328850");
  domain("intel-rapl:0:0", "core", "500", "262143328850");
  domain("intel-rapl-mmio:0", "package-0", "7", "262143328850");
  const RaplPackages rapl = find_rapl_packages(root);
  ASSERT_EQ(rapl.packages.size(), 2u);
  EXPECT_EQ(rapl.packages[0].name, "package-0");
  EXPECT_EQ(rapl.packages[1].name, "package-1");
  EXPECT_EQ(rapl.packages[0].max_range_uj, 262143328850u);
  EXPECT_TRUE(rapl.absent.empty());
  EXPECT_EQ(*read_rapl_uj(rapl), (std::vector<std::uint64_t>{1000, 2000}));
}

TEST_F(RaplTest, NoFolderOrUnreadableCounterIsAbsentWithAReason) {
  EXPECT_NE(find_rapl_packages(root / "missing").absent.find("no RAPL counters"),
            std::string::npos);
  domain("intel-rapl:0", "package-0", "", "100");
  const RaplPackages rapl = find_rapl_packages(root);
  EXPECT_TRUE(rapl.packages.empty());
  EXPECT_NE(rapl.absent.find("energy_uj cannot be read"), std::string::npos);
  EXPECT_FALSE(RaplWindow(rapl).finish(5));
}

TEST_F(RaplTest, WrapsAtTheMaximumRange) {
  EXPECT_DOUBLE_EQ(*rapl_delta_j(1'000'000, 3'500'000, 10'000'000), 2.5);
  // 10 J range: from 9 J to 1 J is 2 J, not minus 8.
  EXPECT_DOUBLE_EQ(*rapl_delta_j(9'000'000, 1'000'000, 10'000'000), 2.0);
  EXPECT_FALSE(rapl_delta_j(9'000'000, 1'000'000, 0));  // no range: cannot tell
}

TEST_F(RaplTest, WindowSumsThePackages) {
  domain("intel-rapl:0", "package-0", "9000000", "10000000");
  domain("intel-rapl:1", "package-1", "0", "10000000");
  const RaplPackages rapl = find_rapl_packages(root);
  const RaplWindow window(rapl);
  std::ofstream(root / "intel-rapl:0" / "energy_uj") << "1000000\n";  // wrapped: +2 J
  std::ofstream(root / "intel-rapl:1" / "energy_uj") << "500000\n";   // +0.5 J
  const auto t = window.finish(7);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->source, "rapl");
  EXPECT_EQ(t->samples, 7);
  EXPECT_DOUBLE_EQ(*t->energy_j, 2.5);
  EXPECT_EQ(t->energy_method, "rapl_packages");
  EXPECT_EQ(t->absent.at("power"), "RAPL gives energy only");
  EXPECT_FALSE(rapl_energy_j(rapl, {1}, {2}));  // a reading per package or none
}

}  // namespace
}  // namespace lb
