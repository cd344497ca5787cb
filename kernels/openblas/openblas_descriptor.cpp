// The OpenBLAS backend as the application sees it (harness/api/backend_descriptor.hpp).
#include <stdexcept>
#include <string_view>
#include <utility>

#include "harness/doctor/cpu_usability.hpp"
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

// "0.3.21" from "OpenBLAS 0.3.21 ..." (the headers' version or openblas_get_config()).
std::string version_number(std::string_view text) {
  if (const std::string_view name = "OpenBLAS "; text.substr(0, name.size()) == name)
    text.remove_prefix(name.size());
  return std::string(text.substr(0, text.find(' ')));
}

// The library this backend loads at run time, or why it cannot: a finding, never a throw.
void probe_into(doctor::Snapshot& snapshot) {
  doctor::BackendFinding finding{.backend = "openblas",
                                 .library = "OpenBLAS",
                                 .compiled = version_number(compiled_version()),
                                 .loaded = {},
                                 .notes = {},
                                 .problem = std::nullopt};
  try {
    const Library& loaded = library();
    finding.loaded = version_number(config_text());
    finding.notes = {"config: " + config_text(), "core: " + core_text(), "file: " + loaded.file};
  } catch (const std::runtime_error& e) {
    finding.problem = doctor::BackendProblem{
        .problem = e.what(),
        .fix =
            "install OpenBLAS (Debian/Ubuntu: apt-get install libopenblas0) or put the folder "
            "of libopenblas.so.0 on LD_LIBRARY_PATH"};
  }
  snapshot.backends.push_back(std::move(finding));
}
}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor openblas{
      .name = "openblas",
      .device_kind = std::string(cpu_kind),
      .primary = false,
      .point_backends = {"openblas"},
      .library_names = {{"openblas", "OpenBLAS"}},
      .probe = probe_into,
      .usability = cpu_always_usable,
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
      .gpu_processes = {},  // a CPU has no GPU processes to list
      .describe = {},       // the harness probes the CPU itself
      .options = {},
      .make = [](int, int threads, const BackendOptionValues&) { return make_backend(threads); }};
  return openblas;
}

}  // namespace lb::openblas
