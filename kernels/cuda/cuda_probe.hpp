#pragma once
// What the CUDA runtime says about the GPUs, for the doctor. In the plugin; the libraries'
// versions are read by the binary's loader (loader/cuda_loader.hpp).
#include "harness/doctor/snapshot.hpp"

namespace lb::cuda {

// The devices: count (with CUDA's error when it fails), and per GPU its properties, free memory
// and whether this build has code for it. Without a driver the device calls only return errors,
// which are recorded.
void probe_devices(doctor::Snapshot& snapshot);

}  // namespace lb::cuda
