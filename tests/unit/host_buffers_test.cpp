// Host arenas: page-aligned, and the memory of released ones reused by the next arenas that fit,
// several at once as autotuning's candidates hold them, so that a case set up again faults in
// no new pages.
#include "harness/measure/host_buffers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>

namespace lb {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

TEST(HostArena, StartsOnAPage) {
  const HostArena arena(3 * mib + 5);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.at(0)) % page_bytes, 0u);
}

TEST(HostArena, ArenasReleasedTogetherAreAllReusedByTheNextOnesThatFit) {
  std::set<const std::byte*> released;
  {
    const HostArena a(8 * mib), b(9 * mib), c(10 * mib);
    released = {a.at(0), b.at(0), c.at(0)};
  }
  const HostArena a(8 * mib), b(9 * mib), c(10 * mib);
  EXPECT_EQ((std::set<const std::byte*>{a.at(0), b.at(0), c.at(0)}), released);
}

TEST(HostArena, AReleasedArenaServesASmallerOne) {
  const std::byte* released = nullptr;
  // Larger than what the other tests release, so that it is the smallest that fits.
  { released = HostArena(200 * mib).at(0); }
  EXPECT_EQ(HostArena(150 * mib).at(0), released);
}

TEST(HostArena, AnArenaLargerThanAnyReleasedOneGetsNewMemory) {
  const std::byte* released = nullptr;
  { released = HostArena(2 * mib).at(0); }
  const HostArena larger(64 * mib);
  EXPECT_NE(larger.at(0), released);
  const HostArena smaller(1 * mib);  // the released one is still kept for it
  EXPECT_EQ(smaller.at(0), released);
}

}  // namespace
}  // namespace lb
