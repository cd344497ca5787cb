#include "harness/device_id.hpp"

#include <charconv>

namespace lb {

std::string_view name(DeviceKind kind) { return kind == DeviceKind::cpu ? "cpu" : "gpu"; }

std::string to_string(const DeviceId& id) {
  if (id.kind == DeviceKind::cpu) return "cpu";
  return std::string(name(id.kind)) + ":" + std::to_string(id.index);
}

std::optional<DeviceId> parse_device_id(std::string_view text) {
  if (text == "cpu") return DeviceId{DeviceKind::cpu, 0};
  const std::string_view gpu = name(DeviceKind::gpu);
  if (text == gpu) return DeviceId{DeviceKind::gpu, 0};
  if (text.size() <= gpu.size() + 1 || text.substr(0, gpu.size()) != gpu || text[gpu.size()] != ':')
    return std::nullopt;
  const std::string_view digits = text.substr(gpu.size() + 1);
  int index = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  // from_chars takes a leading '-'; an index is a plain decimal number.
  if (error != std::errc() || end != digits.data() + digits.size() || digits.front() == '-')
    return std::nullopt;
  return DeviceId{DeviceKind::gpu, index};
}

}  // namespace lb
