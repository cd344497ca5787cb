// The oneDNN backend as the application sees it (harness/backend_descriptor.hpp).
#include <oneapi/dnnl/dnnl_version.h>

#include "harness/doctor/versions.hpp"
#include "kernels/onednn/onednn_backend.hpp"
#include "kernels/onednn/onednn_probe.hpp"

namespace lb::onednn {

const BackendDescriptor& descriptor() {
  static const BackendDescriptor onednn{
      .name = "onednn",
      .device_kind = DeviceKind::cpu,
      .probe = [](doctor::Snapshot& snapshot) { probe(snapshot.cpu); },
      .version_rows =
          [] {
            doctor::CpuInfo cpu;
            probe(cpu);
            const std::string compiled =
                doctor::text({DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH});
            return std::vector<VersionRow>{
                {"oneDNN", doctor::compiled_and_loaded(compiled, cpu.onednn_version) +
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
