#include "kernels/cuda/arch_probe.hpp"

namespace lb::cuda {
namespace {
// Compiled for every architecture of the build like any other kernel, so asking CUDA for its
// attributes tells whether the build has code for a device. It is never launched.
__global__ void arch_probe_kernel() {}
}  // namespace

cudaError_t arch_probe(int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return e;
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, arch_probe_kernel);
}

}  // namespace lb::cuda
