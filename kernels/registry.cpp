#include "kernels/registry.hpp"

#include <stdexcept>

#if LAYERBENCH_HAVE_RUN
#include "kernels/onednn/onednn_backend.hpp"
#include "kernels/onednn/onednn_probe.hpp"
#endif
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_probe.hpp"
#endif

namespace lb {

std::unique_ptr<Backend> make_cpu_backend(int threads) {
#if LAYERBENCH_HAVE_RUN
  return onednn::make_backend(threads);
#else
  (void)threads;
  throw std::runtime_error("this layerbench was built without oneDNN (LAYERBENCH_RUN=OFF)");
#endif
}

std::vector<std::unique_ptr<Backend>> make_gpu_backends(const std::vector<int>& gpu_indices) {
  std::vector<std::unique_ptr<Backend>> backends;
#if LAYERBENCH_HAVE_CUDA
  for (int index : gpu_indices) backends.push_back(cuda::make_backend(index));
#else
  if (!gpu_indices.empty())
    throw std::runtime_error("this layerbench was built without CUDA: no GPU backend");
#endif
  return backends;
}

void probe_backends(doctor::Snapshot& snapshot) {
#if LAYERBENCH_HAVE_RUN
  onednn::probe(snapshot.cpu);
#endif
#if LAYERBENCH_HAVE_CUDA
  cuda::probe(snapshot);
#endif
}

}  // namespace lb
