// The OpenBLAS backend as the application sees it (harness/backend_descriptor.hpp).
#include <stdexcept>
#include <string_view>

#include "kernels/openblas/openblas_backend.hpp"
#include "kernels/openblas/openblas_case.hpp"
#include "kernels/openblas/openblas_library.hpp"

namespace lb::openblas {

namespace {
// OPENBLAS_VERSION is " OpenBLAS 0.3.21 ": the version the headers came with.
std::string compiled_version() {
  std::string_view text = OPENBLAS_VERSION;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}
}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor openblas{
      .name = "openblas",
      .device_kind = DeviceKind::cpu,
      .probe = [](doctor::Snapshot&) {},  // nothing for the doctor: no driver, no device
      .version_rows =
          [] {
            std::string loaded;
            try {
              loaded =
                  "loaded " + config_text() + " (core " + core_text() + ", " + library().file + ")";
            } catch (const std::runtime_error& e) {
              loaded = e.what();
            }
            return std::vector<VersionRow>{
                {"OpenBLAS", "compiled " + compiled_version() + ", " + loaded}};
          },
      // Its version and build are a device fact (openblas_config, with the core it chose), read
      // from the library the backend loads, so nothing here for context.libraries.
      .libraries =
          [](const doctor::Snapshot&) {
            return std::vector<std::pair<std::string, std::string>>{};
          },
      .options = {},
      .make = [](int, int threads, const BackendOptionValues&) { return make_backend(threads); }};
  return openblas;
}

}  // namespace lb::openblas
