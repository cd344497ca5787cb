// A case's operands in its arena: each at its own offset within a page, evenly spread, never
// overlapping, whatever their sizes (ResNet-50's activations are whole pages).
#include "harness/measure/operand_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace lb {
namespace {

// The shortest distance around the page between any two of the offsets.
std::size_t closest_pair_distance(const std::vector<std::size_t>& offsets) {
  std::size_t closest = page_bytes;
  for (std::size_t i = 0; i < offsets.size(); ++i)
    for (std::size_t j = i + 1; j < offsets.size(); ++j) {
      const std::size_t a = offsets[i] % page_bytes, b = offsets[j] % page_bytes;
      const std::size_t d = a > b ? a - b : b - a;
      closest = std::min(closest, std::min(d, page_bytes - d));
    }
  return closest;
}

void expect_placed(const std::vector<std::size_t>& sizes) {
  const OperandLayout layout = lay_out_operands(sizes);
  ASSERT_EQ(layout.offsets.size(), sizes.size());
  std::set<std::size_t> page_offsets;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t start = layout.offsets[i];
    EXPECT_EQ(start % cache_line_bytes, 0u) << "operand " << i;
    EXPECT_EQ(start % page_bytes, staggered_page_offset(i, sizes.size())) << "operand " << i;
    EXPECT_TRUE(page_offsets.insert(start % page_bytes).second)
        << "operand " << i << " is 4K-aliased with an earlier one at page offset "
        << start % page_bytes;
    const std::size_t previous_end = i == 0 ? 0 : layout.offsets[i - 1] + sizes[i - 1];
    EXPECT_GE(start, previous_end) << "operand " << i << " overlaps the one before";
    EXPECT_LT(start - previous_end, page_bytes) << "operand " << i << " wastes a page";
  }
  EXPECT_EQ(layout.bytes, layout.offsets.back() + sizes.back());
}

TEST(OperandLayout, StartsAreSpreadEvenlyOverThePageOnCacheLines) {
  EXPECT_EQ(staggered_page_offset(0, 1), 0u);
  EXPECT_EQ(staggered_page_offset(1, 2), 2048u);
  EXPECT_EQ(staggered_page_offset(1, 3), 1344u);  // 1365 down to a line
  EXPECT_EQ(staggered_page_offset(2, 3), 2688u);
  EXPECT_EQ(staggered_page_offset(3, 4), 3072u);
}

TEST(OperandLayout, TheClosestTwoStartsAreAsFarApartAsLinesAllow) {
  const std::size_t lines = page_bytes / cache_line_bytes;
  for (std::size_t count = 2; count <= lines; ++count) {
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < count; ++i) offsets.push_back(staggered_page_offset(i, count));
    // count starts on the page's 64 lines: the closest two can be at most lines / count apart.
    EXPECT_EQ(closest_pair_distance(offsets), lines / count * cache_line_bytes) << count;
  }
}

TEST(OperandLayout, WholePageOperandsAreNotAliased) {
  // ResNet-50 b8 activations (98 pages each) and the scratchpad behind them.
  expect_placed({98 * page_bytes, 98 * page_bytes});
  expect_placed({98 * page_bytes, page_bytes * 2, 4 * 512, 4 * 512, 98 * page_bytes, 256});
}

TEST(OperandLayout, OperandsOfAnySizeNeitherOverlapNorAlias) {
  expect_placed({1});
  expect_placed({4, 4, 4});
  expect_placed({0, 0, 0, 0});  // an empty operand still gets its own start
  expect_placed({4097, 1, 8191, 64, 4096 * 3 + 17, 100000, 3});
  std::vector<std::size_t> many(64, 100);
  expect_placed(many);
}

TEST(OperandLayout, ANoteGivesEachOperandsAddressModuloThePage) {
  alignas(4096) static char page[2 * 4096];
  EXPECT_EQ(
      page_offsets_note({{"src", page}, {"dst", page + 4096 + 1024}, {"scratchpad", page + 64}}),
      "src 0, dst 1024, scratchpad 64");
  EXPECT_EQ(page_offsets_note({}), "");
}

}  // namespace
}  // namespace lb
