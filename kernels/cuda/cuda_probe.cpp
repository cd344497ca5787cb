#include "kernels/cuda/cuda_probe.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/cuda/arch_probe.hpp"
#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {
namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  return succeeded_or_cleared(cudaDeviceGetAttribute(&value, what, device)) ? value : 0;
}

doctor::GpuInfo probe_gpu(int device) {
  doctor::GpuInfo g;
  g.index = device;
  cudaDeviceProp p{};
  if (succeeded_or_cleared(cudaGetDeviceProperties(&p, device))) {
    g.name = p.name;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.sm_count = p.multiProcessorCount;
    g.memory_total = p.totalGlobalMem;
    g.memory_bus_bits = p.memoryBusWidth;
    g.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  }
  // Clocks are attributes in kHz (cudaDeviceProp's clock fields are gone from CUDA 13).
  g.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000;
  g.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  if (cudaSetDevice(device) == cudaSuccess) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
      g.memory_free = free;
      g.memory_total = total;
    }
  }
  g.build_has_code = arch_probe(device) == cudaSuccess;
  return g;
}

}  // namespace

void probe_devices(doctor::Snapshot& s) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    s.nvidia.device_error = cuda_error_text(e);
    count = 0;
  }
  s.nvidia.device_count = count;
  for (int device = 0; device < count; ++device) s.nvidia.gpus.push_back(probe_gpu(device));
}

}  // namespace lb::cuda
