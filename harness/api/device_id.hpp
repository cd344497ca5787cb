#pragma once
// Device ids as `--device` takes them and results files record them: "cpu", "gpu:0",
// "<kind>:N". A kind and an index, nothing about which library drives the device
// (BackendDescriptor::device_kind says which kind a backend offers). Kinds are open: a backend
// may bring a kind of its own, and only the host CPU is special.
#include <optional>
#include <string>
#include <string_view>

namespace lb {

// The host's kind, and the kind every GPU backend offers.
inline constexpr std::string_view cpu_kind = "cpu";
inline constexpr std::string_view gpu_kind = "gpu";

// The CPU is one device ("cpu"); devices of any other kind are numbered ("gpu:0", "gpu:1", ...).
struct DeviceId {
  std::string kind = std::string(cpu_kind);
  int index = 0;
  bool is_cpu() const { return kind == cpu_kind; }
};
std::string to_string(const DeviceId& id);

// Whether `kind` may name a device kind: a lower-case letter, then lower-case letters, digits or
// '_' (so that "kind:N" and "device@backend" keys stay unambiguous).
bool is_device_kind(std::string_view kind);

// "cpu", "<kind>" (= <kind>:0) or "<kind>:N" with N a decimal int; nullopt for anything else.
// Whether a backend offers the kind is the caller's question.
std::optional<DeviceId> parse_device_id(std::string_view text);

}  // namespace lb
