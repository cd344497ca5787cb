// Host arenas: page-aligned, and the memory of released ones reused by the next arenas that fit,
// several at once as autotuning's candidates hold them, so that a case set up again faults in
// no new pages.
#include "harness/measure/host_buffers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <thread>

#include "harness/os/platform.hpp"
#include "tests/unit/address_space_support.hpp"

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

TEST(HostArena, ALargeArenaAsksForHugePagesAndSaysWhatItGot) {
  const auto mode = platform::transparent_huge_page_mode();
  if (!mode || *mode == "never")
    GTEST_SKIP() << "the kernel gives no transparent huge pages (mode: " << mode.value_or("none")
                 << ")";
  // New memory or a kept block of another test: either asked for huge pages when it was new.
  const HostArena arena(16 * mib);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.at(0)) % huge_page_bytes, 0u);
  EXPECT_EQ(arena.bytes() % huge_page_bytes, 0u);
  // Where the kernel found free huge pages: with defrag "madvise" it compacts memory for them.
  ASSERT_TRUE(arena.bytes_on_huge_pages().has_value());
  EXPECT_GT(*arena.bytes_on_huge_pages(), arena.bytes() / 2);
  EXPECT_LE(*arena.bytes_on_huge_pages(), arena.bytes());
}

TEST(HostArena, PagesNoteSaysWhichPagesTheArenaLiesOn) {
  EXPECT_EQ(pages_note(64 * mib, 64 * mib), "2 MiB");
  EXPECT_EQ(pages_note(64 * mib, 0), "4 KiB");
  EXPECT_EQ(pages_note(100 * mib, 60 * mib), "2 MiB for 60%, 4 KiB for the rest");
  EXPECT_EQ(pages_note(100 * mib, 100 * mib - 1), "2 MiB for 99%, 4 KiB for the rest");
  EXPECT_EQ(pages_note(64 * mib, std::nullopt), "unknown");
}

#ifdef LB_CAN_LIMIT_ADDRESS_SPACE
// In a child: keeps an arena of `kept` bytes, limits its address space to `room` bytes beyond
// what it then uses (the kept arena included), and asks for a case arena of `asked` bytes, which
// fits only once the kept one is given up. Exits 0 when the case arena is had.
[[noreturn]] void ask_beside_kept_memory(std::size_t kept, std::size_t asked, std::size_t room) {
  { const HostArena released(kept); }
  if (!limit_address_space_to_in_use_plus(room)) std::_Exit(2);
  try {
    allocate_case_arena("test case", asked, 0);
  } catch (const OutOfMemory&) {
    std::_Exit(1);
  }
  std::_Exit(0);
}

// In a child: limits its address space to what it uses plus `room` bytes, enough for a new arena
// of `bytes` but not for a thread's stack (8 MiB by default), and takes the arena. Exits 0 when
// the arena is had, its pages written.
[[noreturn]] void new_arena_without_room_for_a_thread(std::size_t bytes, std::size_t room) {
  if (!limit_address_space_to_in_use_plus(room)) std::_Exit(2);
  try {
    const HostArena arena(bytes);
  } catch (const std::bad_alloc&) {
    std::_Exit(1);
  }
  std::_Exit(0);
}
#endif

TEST(HostArenaDeathTest, PagesAreWrittenWhereNoOtherThreadCanStart) {
#ifndef LB_CAN_LIMIT_ADDRESS_SPACE
  GTEST_SKIP() << "needs Linux's RLIMIT_AS, which sanitizer builds cannot run under";
#else
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one processor: no helper thread";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // 8 MiB asked: a 10 MiB block, 2 MiB-aligned within 12 MiB of address space; 4 MiB left over.
  EXPECT_EXIT(new_arena_without_room_for_a_thread(8 * mib, 16 * mib), testing::ExitedWithCode(0),
              "");
#endif
}

TEST(HostArenaDeathTest, KeptMemoryIsGivenUpBeforeACaseIsOutOfMemory) {
#ifndef LB_CAN_LIMIT_ADDRESS_SPACE
  GTEST_SKIP() << "needs Linux's RLIMIT_AS, which sanitizer builds cannot run under";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Arenas are an eighth larger than asked, in whole huge pages. The kept one (226 MiB) is too
  // small to serve 240, and the new one (270) does not fit in 200 more: the allocation fails.
  EXPECT_EXIT(ask_beside_kept_memory(200 * mib, 240 * mib, 200 * mib), testing::ExitedWithCode(0),
              "");
  // The new one (170) fits in 190 more, but leaves less than the libraries' 32 MiB headroom.
  EXPECT_EXIT(ask_beside_kept_memory(100 * mib, 150 * mib, 190 * mib), testing::ExitedWithCode(0),
              "");
#endif
}

}  // namespace
}  // namespace lb
