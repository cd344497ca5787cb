#include "bench/backend_registry.hpp"

#include "harness/results/backend_roles.hpp"

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

void install_backend_roles() {
  std::vector<BackendRole> roles;
  for (const BackendDescriptor* d : backend_descriptors())
    roles.push_back(
        {d->name, d->primary,
         d->point_backends.empty() ? std::vector<std::string>{d->name} : d->point_backends});
  set_backend_roles(std::move(roles));
}

doctor::Snapshot probe_machine(const doctor::ProbeOptions& options) {
  doctor::Snapshot snapshot = doctor::probe_host(options);
  for (const BackendDescriptor* backend : backend_descriptors()) backend->probe(snapshot);
  return snapshot;
}

}  // namespace lb
