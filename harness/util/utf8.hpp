#pragma once
// Text from outside layerbench (the host's name, the command line, file names) on its way into
// JSON, which holds only UTF-8: nlohmann's dump throws on any other byte, which would end a run
// without its results file. Unicode's table of well-formed UTF-8 (The Unicode Standard, Table
// 3-7) decides what is valid.
#include <string>
#include <string_view>

namespace lb {

bool is_utf8(std::string_view bytes);

// `bytes` with each byte that does not start a well-formed sequence replaced by U+FFFD; valid
// UTF-8 is returned unchanged.
std::string utf8_or_replaced(std::string_view bytes);

}  // namespace lb
