#pragma once
// Probing the real machine into a Snapshot. Never throws and never needs a driver: a missing
// piece is recorded in the snapshot for diagnose() to explain.
#include "harness/doctor/snapshot.hpp"

namespace lb::doctor {

struct ProbeOptions {
  bool measure_cpu_peak = false;  // runs the FMA microbenchmark, about a second
  int cpu_peak_threads = 0;       // 0 = every logical processor
};

// What the harness itself can see: OS, CPU (CPUID), the NVIDIA driver (loaded at run time,
// never linked) and the environment variables that change the outcome. Whether this build has
// GPU backends is theirs to say (their probe sets Snapshot::cuda_build).
Snapshot probe_host(const ProbeOptions& options = {});

// The backends add what their libraries report: lb::probe_machine in bench/backend_registry.hpp.

}  // namespace lb::doctor
