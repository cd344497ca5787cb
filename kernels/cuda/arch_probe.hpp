#pragma once
// Whether this binary carries device code (SASS for the GPU's architecture, or PTX it can JIT)
// that runs on a given GPU.
#include <cuda_runtime_api.h>

namespace lb::cuda {

// cudaSuccess when a kernel of this build can run on `device`; cudaErrorNoKernelImageForDevice
// when the build has no code for its architecture; other errors as CUDA reports them.
cudaError_t arch_probe(int device);

}  // namespace lb::cuda
