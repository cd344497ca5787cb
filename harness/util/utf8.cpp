#include "harness/util/utf8.hpp"

#include <cstddef>

namespace lb {
namespace {

// The length of the well-formed sequence at `at`, or 0 when none starts there.
std::size_t sequence_at(std::string_view bytes, std::size_t at) {
  const auto byte = [&](std::size_t i) {
    return at + i < bytes.size() ? static_cast<unsigned char>(bytes[at + i]) : 0x100u;
  };
  const auto in = [](unsigned value, unsigned lo, unsigned hi) {
    return value >= lo && value <= hi;
  };
  const unsigned lead = byte(0);
  if (lead <= 0x7f) return 1;
  // The second byte's range depends on the lead (no overlong forms, no surrogates, nothing
  // beyond U+10FFFF); every later byte is 80..BF.
  unsigned lo = 0x80, hi = 0xbf;
  std::size_t length = 0;
  if (in(lead, 0xc2, 0xdf)) {
    length = 2;
  } else if (in(lead, 0xe0, 0xef)) {
    length = 3;
    if (lead == 0xe0) lo = 0xa0;
    if (lead == 0xed) hi = 0x9f;
  } else if (in(lead, 0xf0, 0xf4)) {
    length = 4;
    if (lead == 0xf0) lo = 0x90;
    if (lead == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (!in(byte(1), lo, hi)) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (!in(byte(i), 0x80, 0xbf)) return 0;
  return length;
}

}  // namespace

bool is_utf8(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t length = sequence_at(bytes, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string utf8_or_replaced(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size());
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t length = sequence_at(bytes, at);
    if (length == 0) {
      text += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
      ++at;
    } else {
      text.append(bytes, at, length);
      at += length;
    }
  }
  return text;
}

}  // namespace lb
