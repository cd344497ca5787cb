#pragma once
// The kernel that holds a stream (see kernels/cuda/logic/launch_hold.hpp for why).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lb::cuda {

// Enqueues one single-thread kernel that waits `ns` nanoseconds of GPU time (the global timer)
// on `stream`. Returns the launch's error.
cudaError_t hold_stream(cudaStream_t stream, std::uint64_t ns);

}  // namespace lb::cuda
