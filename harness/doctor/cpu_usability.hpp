#pragma once
// The usability check every CPU backend's descriptor shares (BackendDescriptor::usability).
#include "harness/api/backend_descriptor.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb {

// A CPU backend's usability: the CPU is there whenever the program runs.
inline DeviceUsability cpu_always_usable(const doctor::Snapshot& snapshot, const doctor::Facts&) {
  return {{0}, "CPU ready: " + snapshot.cpu.model, {}};
}

}  // namespace lb
