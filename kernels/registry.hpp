#pragma once
// The one place that knows every backend. Commands ask here for devices and probes.
#include <memory>
#include <vector>

#include "harness/backend.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb {

// The CPU backend (oneDNN) with `threads` threads (0 = all cores).
std::unique_ptr<Backend> make_cpu_backend(int threads);

// One backend per requested GPU index. Throws std::runtime_error naming the GPU when it cannot
// be used; callers ask the doctor first for the reason to show.
std::vector<std::unique_ptr<Backend>> make_gpu_backends(const std::vector<int>& gpu_indices);

// Fill what only the backends' libraries can tell: oneDNN version and ISA, CUDA runtime,
// devices, cuDNN and cuBLAS versions. Never throws and never needs a driver.
void probe_backends(doctor::Snapshot& snapshot);

}  // namespace lb
