// `layerbench --version`: what produced a result, down to each library's version as compiled
// against and as loaded at run time (they differ when the loader finds another copy).
#include "bench/version.hpp"

#include <CLI/Version.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "build_info.hpp"
#include "harness/doctor/versions.hpp"

namespace lb::cli {
namespace {

void row(std::ostream& out, const std::string& library, const std::string& text) {
  out << "  " << library << std::string(18 - library.size(), ' ') << text << "\n";
}

bool has_backend_for(std::string_view kind) {
  for (const BackendDescriptor* backend : backend_descriptors())
    if (backend->device_kind == kind) return true;
  return false;
}

}  // namespace

void print_version(std::ostream& out) {
  out << "layerbench " << build::version << " (git " << build::git_revision << "), "
      << build::build_type << " build, " << build::compiler << "\n";
  out << "libraries:\n";
  // Each backend's libraries, then the harness's own.
  for (const BackendDescriptor* backend : backend_descriptors())
    for (const VersionRow& version : backend->version_rows())
      row(out, version.library, version.text);
#if LAYERBENCH_HAVE_RUN
#ifdef LAYERBENCH_BENCHMARK_VERSION
  row(out, "Google Benchmark", std::string(LAYERBENCH_BENCHMARK_VERSION) + " (as found by CMake)");
#else
  row(out, "Google Benchmark", "version not recorded (the library has no version API)");
#endif
#else
  row(out, "oneDNN", "not in this build (LAYERBENCH_RUN=OFF)");
  row(out, "Google Benchmark", "not in this build (LAYERBENCH_RUN=OFF)");
  row(out, "run", run_left_out);
#endif
  row(out, "nlohmann_json",
      doctor::text(
          {NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH}) +
          " (header-only)");
  row(out, "CLI11", std::string(CLI11_VERSION) + " (header-only)");
  if (!has_backend_for(gpu_kind)) row(out, "CUDA", "not used: CPU-only build");
}

}  // namespace lb::cli
