#include "kernels/cuda/cuda_probe.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "build_info.hpp"
#include "harness/platform.hpp"
#include "kernels/cuda/arch_probe.hpp"
#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {
namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  return cudaDeviceGetAttribute(&value, what, device) == cudaSuccess ? value : 0;
}

doctor::GpuInfo probe_gpu(int device) {
  doctor::GpuInfo g;
  g.index = device;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) == cudaSuccess) {
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

void probe_libraries(doctor::Snapshot& s) {
  if (cudaRuntimeGetVersion(&s.runtime_version) != cudaSuccess) s.runtime_version = CUDART_VERSION;
  // cudnnGetVersion and cublasLtGetVersion only report numbers: safe without a device.
  s.cudnn.compiled_version = CUDNN_VERSION;
  s.cudnn.loaded_version = static_cast<int>(cudnnGetVersion());
  s.cudnn.cuda_version = static_cast<int>(cudnnGetCudartVersion());
  s.cudnn.loaded = s.cudnn.loaded_version > 0;
  s.cudnn.path = platform::module_path_of(reinterpret_cast<const void*>(&cudnnGetVersion));
  s.cublas.compiled_version = CUBLAS_VERSION;
  s.cublas.loaded_version = static_cast<int>(cublasLtGetVersion());
  s.cublas.cuda_version = static_cast<int>(cublasLtGetCudartVersion());
  s.cublas.loaded = s.cublas.loaded_version > 0;
  s.cublas.path = platform::module_path_of(reinterpret_cast<const void*>(&cublasLtGetVersion));
}

void probe(doctor::Snapshot& s) {
  s.cuda_build = true;
  s.build_architectures = build::cuda_architectures;
  probe_libraries(s);
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    s.device_error = cuda_error_text(e);
    count = 0;
  }
  s.device_count = count;
  for (int device = 0; device < count; ++device) s.gpus.push_back(probe_gpu(device));
}

}  // namespace lb::cuda
