#pragma once
// Probing the real machine into a Snapshot. Never throws and never needs a driver: a missing
// piece is recorded in the snapshot for diagnose() to explain.
#include "harness/doctor/snapshot.hpp"
#include "kernels/registry.hpp"

namespace lb::doctor {

struct ProbeOptions {
  bool measure_cpu_peak = false;  // runs the FMA microbenchmark, about a second
  int cpu_peak_threads = 0;       // 0 = every logical processor
};

// What the harness itself can see: OS, CPU (CPUID), the NVIDIA driver (loaded at run time,
// never linked), build configuration and the environment variables that change the outcome.
Snapshot probe_host(const ProbeOptions& options = {});

// The whole machine: probe_host plus what the backends' libraries report (oneDNN, CUDA
// runtime, GPUs, cuDNN, cuBLAS). Inline so the caller, which links the backends, resolves it.
inline Snapshot probe_machine(const ProbeOptions& options = {}) {
  Snapshot snapshot = probe_host(options);
  probe_backends(snapshot);
  return snapshot;
}

}  // namespace lb::doctor
