// The oneDNN backend as the application sees it (harness/api/backend_descriptor.hpp).
#include <oneapi/dnnl/dnnl_version.h>

#include "harness/doctor/cpu_usability.hpp"
#include "harness/doctor/versions.hpp"
#include "kernels/onednn/onednn_backend.hpp"
#include "kernels/onednn/onednn_probe.hpp"

namespace lb::onednn {

namespace {
std::string compiled_version() {
  return doctor::text({DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH});
}

// oneDNN is linked in, so it is always loaded: its finding says which version and ISA.
void probe_into(doctor::Snapshot& snapshot) {
  const LibraryInfo onednn = probe();
  snapshot.backends.push_back({.backend = "onednn",
                               .library = "oneDNN",
                               .compiled = compiled_version(),
                               .loaded = onednn.version,
                               .notes = {"dispatches to " + onednn.isa},
                               .problem = std::nullopt});
}
}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor onednn{
      .name = "onednn",
      .device_kind = std::string(cpu_kind),
      .primary = true,
      .point_backends = {"onednn"},
      .library_names = {{"onednn", "oneDNN"}},
      .probe = probe_into,
      .usability = cpu_always_usable,
      .version_rows =
          [] {
            const LibraryInfo onednn = probe();
            return std::vector<VersionRow>{
                {"oneDNN", doctor::compiled_and_loaded(compiled_version(), onednn.version) +
                               " (dispatches to " + onednn.isa + ")"}};
          },
      .libraries =
          [](const doctor::Snapshot&) {
            return std::vector<std::pair<std::string, std::string>>{{"onednn", probe().version}};
          },
      .gpu_processes = {},  // a CPU has no GPU processes to list
      .describe = {},       // the harness probes the CPU itself
      .options = {},        // --algo and --threads are the harness's
      .make = [](int, int threads, const BackendOptionValues&) { return make_backend(threads); }};
  return onednn;
}

}  // namespace lb::onednn
