#pragma once
// The one reader of comma-separated lists in flags and settings ("1,8,32", "onednn,openblas").
#include <string_view>
#include <vector>

namespace lb {

// The items of `text`, each trimmed of spaces. An empty item (",,", a trailing comma, or empty
// text) throws std::invalid_argument "LABEL: empty item in 'TEXT'", LABEL naming the flag or
// field the text came from.
std::vector<std::string_view> split_comma_list(std::string_view text, std::string_view label);

}  // namespace lb
