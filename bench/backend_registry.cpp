#include "bench/backend_registry.hpp"

#if LAYERBENCH_HAVE_RUN
#include "kernels/onednn/onednn_backend.hpp"
#endif
#if LAYERBENCH_HAVE_OPENBLAS
#include "kernels/openblas/openblas_backend.hpp"
#endif
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/loader/cuda_loader.hpp"
#endif

namespace lb {

const std::vector<const BackendDescriptor*>& backend_descriptors() {
  static const std::vector<const BackendDescriptor*> descriptors = {
#if LAYERBENCH_HAVE_RUN
    &onednn::descriptor(),
#endif
#if LAYERBENCH_HAVE_OPENBLAS
    &openblas::descriptor(),
#endif
#if LAYERBENCH_HAVE_CUDA
    &cuda::descriptor(),
#endif
  };
  return descriptors;
}

doctor::Snapshot probe_machine(const doctor::ProbeOptions& options) {
  doctor::Snapshot snapshot = doctor::probe_host(options);
  for (const BackendDescriptor* backend : backend_descriptors()) backend->probe(snapshot);
  return snapshot;
}

}  // namespace lb
