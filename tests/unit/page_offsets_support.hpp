#pragma once
// Reads a case's notes.page_offsets ("src 0, dst 1024, scratchpad 2048") and checks that no two
// of its operands start at the same offset within a page: the tests through real cases.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

namespace lb {

// The note's offsets by operand name; fails the test when the note is not in its form.
inline std::map<std::string, std::size_t> page_offsets_in(const std::string& note) {
  std::map<std::string, std::size_t> offsets;
  std::istringstream items(note);
  for (std::string item; std::getline(items, item, ',');) {
    const auto space = item.find_last_of(' ');
    EXPECT_NE(space, std::string::npos) << note;
    if (space == std::string::npos) break;
    const auto name_start = item.find_first_not_of(' ');
    offsets[item.substr(name_start, space - name_start)] = std::stoull(item.substr(space + 1));
  }
  return offsets;
}

// At least two operands, each at its own page offset.
inline void expect_no_two_aliased(const std::string& note, const std::string& what) {
  const auto offsets = page_offsets_in(note);
  EXPECT_GE(offsets.size(), 2u) << what << ": " << note;
  std::set<std::size_t> seen;
  for (const auto& [name, offset] : offsets)
    EXPECT_TRUE(seen.insert(offset).second)
        << what << ": " << name << " starts at the same page offset as another: " << note;
}

}  // namespace lb
