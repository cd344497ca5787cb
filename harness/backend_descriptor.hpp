#pragma once
// Everything the application needs to know about one backend, in one place: its name, the
// devices it offers, what it adds to the doctor's snapshot, its `--version` rows and how it
// makes the Backend that prepares cases. Each backend folder in kernels/ defines one;
// bench/backend_registry.cpp lists them, and doctor, --version and run loop over that list.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb {

enum class DeviceKind { cpu, gpu };

// One line of `layerbench --version`: a library and what is known of its version.
struct VersionRow {
  std::string library;
  std::string text;
};

struct BackendDescriptor {
  std::string name;  // "onednn", "cuda"
  DeviceKind device_kind;
  // Adds what only this backend's libraries can tell (versions, devices). Never throws and
  // never needs a driver: a missing piece is recorded for the doctor to explain.
  std::function<void(doctor::Snapshot&)> probe;
  // Library versions, compiled and loaded; touches no device.
  std::function<std::vector<VersionRow>()> version_rows;
  // The backend for one device: `device_index` is the GPU's index (0 for the CPU), `threads`
  // the CPU threads (0 = every logical processor). Throws std::runtime_error when the device
  // cannot be used.
  std::function<std::unique_ptr<Backend>(int device_index, int threads)> make;
};

}  // namespace lb
