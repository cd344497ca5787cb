#include "harness/util/comma_list.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lb {

std::vector<std::string_view> split_comma_list(std::string_view text, std::string_view label) {
  std::vector<std::string_view> items;
  size_t start = 0;
  while (true) {
    const size_t end = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty())
      throw std::invalid_argument(std::string(label) + ": empty item in '" + std::string(text) +
                                  "'");
    items.push_back(item);
    if (end == text.size()) return items;
    start = end + 1;
  }
}

}  // namespace lb
