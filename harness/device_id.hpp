#pragma once
// Device ids as `--device` takes them and results files record them: "cpu", "gpu:0". A kind and
// an index, nothing about which library drives the device (BackendDescriptor::device_kind says
// which kind a backend offers).
#include <optional>
#include <string>
#include <string_view>

namespace lb {

enum class DeviceKind { cpu, gpu };
std::string_view name(DeviceKind kind);  // "cpu", "gpu"

// The CPU is one device ("cpu"); GPUs are numbered ("gpu:0", "gpu:1", ...).
struct DeviceId {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
};
std::string to_string(const DeviceId& id);

// "cpu", "gpu" (= gpu:0) or "gpu:N" with N a decimal int; nullopt for anything else.
std::optional<DeviceId> parse_device_id(std::string_view text);

}  // namespace lb
