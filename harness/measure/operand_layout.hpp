#pragma once
// Where a CPU case's operands lie in its arena. Each starts at its own offset within a 4 KiB
// page, the offsets spread evenly over the page, so that no two operands are 4K-aliased: a load
// whose address matches a pending store's low 12 bits waits for it (docs/measuring.md,
// "Placement"). Pure logic, unit-tested.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace lb {

inline constexpr std::size_t page_bytes = 4096;
inline constexpr std::size_t cache_line_bytes = 64;

// The offset within a page where operand `index` of `count` starts: index x page / count,
// rounded down to a cache line. Distinct for every index while count <= page / line (64).
std::size_t staggered_page_offset(std::size_t index, std::size_t count);

struct OperandLayout {
  std::vector<std::size_t> offsets;  // from the arena's page-aligned start, in operand order
  std::size_t bytes = 0;             // the arena's size: where the last operand ends
};

// Lays out operands of `sizes` bytes in their order, each at the first offset past the end of
// the one before that lies at its staggered page offset.
OperandLayout lay_out_operands(const std::vector<std::size_t>& sizes);

// "src 0, dst 1024, scratchpad 2048": each named operand's address modulo the page, as a case's
// notes.page_offsets records where its operands really lie.
std::string page_offsets_note(const std::vector<std::pair<std::string, const void*>>& operands);

}  // namespace lb
