#pragma once
// What the CUDA runtime, cuDNN and cuBLAS say about themselves and the GPUs. CUDA builds only.
#include "harness/doctor/snapshot.hpp"

namespace lb::cuda {

// Library versions only (CUDA runtime, cuDNN, cuBLAS; compiled and loaded). Touches no device
// and works without a driver.
void probe_libraries(doctor::Snapshot& snapshot);

// That this build has the CUDA backend and its architectures, probe_libraries, then the devices:
// count (with CUDA's error when it fails), and per GPU its properties, free memory and whether
// this build has code for it. Without a driver the device calls only return errors, which are
// recorded.
void probe(doctor::Snapshot& snapshot);

}  // namespace lb::cuda
