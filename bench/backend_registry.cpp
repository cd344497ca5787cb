#include "bench/backend_registry.hpp"

#include <algorithm>

#include "harness/plan/backend_roles.hpp"

#if LAYERBENCH_HAVE_RUN
#include "kernels/onednn/onednn_backend.hpp"
#endif
#if LAYERBENCH_HAVE_OPENBLAS
#include "kernels/openblas/openblas_backend.hpp"
#endif
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/loader/cuda_loader.hpp"
#endif
#if LAYERBENCH_HAVE_TEST_ACCELERATOR
#include "tests/backends/test_accelerator/test_accelerator.hpp"
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
#if LAYERBENCH_HAVE_TEST_ACCELERATOR
    &test_accelerator::descriptor(),  // TEST DATA, in the tests' build alone
#endif
  };
  return descriptors;
}

// A backend this build lacks keeps the role it had before context.backends, so a file's point
// keys do not depend on the build that reads it (a CPU-only build resuming a CUDA build's file).
void install_backend_roles() {
  std::vector<BackendRole> roles = backend_roles();
  for (const BackendDescriptor* d : backend_descriptors()) {
    BackendRole role{
        d->name, d->primary,
        d->point_backends.empty() ? std::vector<std::string>{d->name} : d->point_backends};
    const auto known = std::find_if(roles.begin(), roles.end(),
                                    [&](const BackendRole& r) { return r.name == d->name; });
    if (known != roles.end())
      *known = std::move(role);
    else
      roles.push_back(std::move(role));
  }
  set_backend_roles(std::move(roles));
}

doctor::Snapshot probe_machine(const doctor::ProbeOptions& options) {
  doctor::Snapshot snapshot = doctor::probe_host(options);
  for (const BackendDescriptor* backend : backend_descriptors()) backend->probe(snapshot);
  return snapshot;
}

std::map<std::string, DeviceUsability> backend_usability(const doctor::Snapshot& snapshot,
                                                         const doctor::Facts& facts) {
  std::map<std::string, DeviceUsability> usability;
  for (const BackendDescriptor* backend : backend_descriptors())
    usability[backend->name] = backend->usability(snapshot, facts);
  return usability;
}

}  // namespace lb
