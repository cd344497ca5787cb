#include "harness/api/device_id.hpp"

#include <charconv>

namespace lb {

std::string to_string(const DeviceId& id) {
  if (id.is_cpu()) return id.kind;
  return id.kind + ":" + std::to_string(id.index);
}

bool is_device_kind(std::string_view kind) {
  if (kind.empty() || kind.front() < 'a' || kind.front() > 'z') return false;
  for (char c : kind)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::optional<DeviceId> parse_device_id(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (!is_device_kind(kind)) return std::nullopt;
  if (colon == std::string_view::npos) return DeviceId{std::string(kind), 0};
  if (kind == cpu_kind) return std::nullopt;  // one CPU, never numbered
  const std::string_view digits = text.substr(colon + 1);
  int index = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  // from_chars takes a leading '-'; an index is a plain decimal number.
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
      digits.front() == '-')
    return std::nullopt;
  return DeviceId{std::string(kind), index};
}

}  // namespace lb
