#pragma once
// The one place that knows every backend: doctor, --version and run loop over this list.
#include <map>
#include <string>
#include <vector>

#include "harness/api/backend_descriptor.hpp"
#include "harness/doctor/probe.hpp"

namespace lb {

// Every backend in this build, CPU backends first.
const std::vector<const BackendDescriptor*>& backend_descriptors();

// Makes the results' point identities follow the descriptors' roles (primary, point backends);
// main calls it before any thread starts.
void install_backend_roles();

// The whole machine: doctor::probe_host plus what each backend's libraries report.
doctor::Snapshot probe_machine(const doctor::ProbeOptions& options = {});

// Each backend's check of its devices on the probed machine (BackendDescriptor::usability), by
// the backend's name.
std::map<std::string, DeviceUsability> backend_usability(const doctor::Snapshot& snapshot,
                                                         const doctor::Facts& facts);

}  // namespace lb
