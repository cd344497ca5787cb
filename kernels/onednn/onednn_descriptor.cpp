// The oneDNN backend as the application sees it (harness/backend_descriptor.hpp).
#include <oneapi/dnnl/dnnl_version.h>

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
  probe(snapshot.cpu);
  snapshot.backends.push_back({.backend = "onednn",
                               .library = "oneDNN",
                               .compiled = compiled_version(),
                               .loaded = snapshot.cpu.onednn_version,
                               .notes = {"dispatches to " + snapshot.cpu.onednn_isa},
                               .problem = std::nullopt});
}
}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor onednn{
      .name = "onednn",
      .device_kind = DeviceKind::cpu,
      .probe = probe_into,
      .version_rows =
          [] {
            doctor::CpuInfo cpu;
            probe(cpu);
            return std::vector<VersionRow>{
                {"oneDNN", doctor::compiled_and_loaded(compiled_version(), cpu.onednn_version) +
                               " (dispatches to " + cpu.onednn_isa + ")"}};
          },
      .libraries =
          [](const doctor::Snapshot& snapshot) {
            return std::vector<std::pair<std::string, std::string>>{
                {"onednn", snapshot.cpu.onednn_version}};
          },
      .options = {},  // --algo and --threads are the harness's
      .make = [](int, int threads, const BackendOptionValues&) { return make_backend(threads); }};
  return onednn;
}

}  // namespace lb::onednn
