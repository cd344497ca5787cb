#pragma once
// Quantities as layerbench's messages show them.
#include <cstdint>
#include <sstream>
#include <string>

namespace lb {

// Bytes in GiB to 3 significant digits, e.g. "1.5 GiB".
inline std::string gib_text(std::uint64_t bytes) {
  std::ostringstream o;
  o.precision(3);
  o << static_cast<double>(bytes) / static_cast<double>(1ull << 30) << " GiB";
  return o.str();
}

}  // namespace lb
