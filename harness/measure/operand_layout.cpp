#include "harness/measure/operand_layout.hpp"

#include <cstdint>

namespace lb {

std::size_t staggered_page_offset(std::size_t index, std::size_t count) {
  return index * page_bytes / count / cache_line_bytes * cache_line_bytes % page_bytes;
}

OperandLayout lay_out_operands(const std::vector<std::size_t>& sizes) {
  OperandLayout layout;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t want = staggered_page_offset(i, sizes.size());
    const std::size_t page_start = layout.bytes / page_bytes * page_bytes;
    std::size_t start = page_start + want;
    if (start < layout.bytes) start += page_bytes;
    layout.offsets.push_back(start);
    layout.bytes = start + sizes[i];
  }
  return layout;
}

std::string page_offsets_note(const std::vector<std::pair<std::string, const void*>>& operands) {
  std::string note;
  for (const auto& [name, address] : operands) {
    if (!note.empty()) note += ", ";
    note += name + " " + std::to_string(reinterpret_cast<std::uintptr_t>(address) % page_bytes);
  }
  return note;
}

}  // namespace lb
