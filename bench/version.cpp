// `layerbench --version`: what produced a result, down to each library's version as compiled
// against and as loaded at run time (they differ when the loader finds another copy).
#include "bench/version.hpp"

#include <CLI/Version.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/commands.hpp"
#include "build_info.hpp"
#include "harness/doctor/snapshot.hpp"
#include "harness/doctor/versions.hpp"
#if LAYERBENCH_HAVE_RUN
#include <oneapi/dnnl/dnnl_version.h>

#include "kernels/onednn/onednn_probe.hpp"
#endif
#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/cuda_probe.hpp"
#endif

namespace lb::cli {
namespace {

void row(std::ostream& out, const std::string& library, const std::string& text) {
  out << "  " << library << std::string(18 - library.size(), ' ') << text << "\n";
}

std::string compiled_and_loaded(const std::string& compiled, const std::string& loaded) {
  return "compiled " + compiled + ", loaded " + loaded;
}

}  // namespace

void print_version(std::ostream& out) {
  out << "layerbench " << build::version << " (git " << build::git_revision << "), "
      << build::build_type << " build, " << build::compiler << "\n";
  out << "libraries:\n";

  doctor::Snapshot s;
#if LAYERBENCH_HAVE_RUN
  onednn::probe(s.cpu);
  row(out, "oneDNN",
      compiled_and_loaded(
          doctor::text({DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH}),
          s.cpu.onednn_version) +
          " (dispatches to " + s.cpu.onednn_isa + ")");
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
      doctor::text({NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                    NLOHMANN_JSON_VERSION_PATCH}) +
          " (header-only)");
  row(out, "CLI11", std::string(CLI11_VERSION) + " (header-only)");

#if LAYERBENCH_HAVE_CUDA
  cuda::probe_libraries(s);
  row(out, "CUDA runtime",
      doctor::cuda_version_text(s.runtime_version) + " (linked statically), architectures " +
          build::cuda_architectures);
  row(out, "cuDNN",
      compiled_and_loaded(doctor::text(doctor::decode_cudnn_version(s.cudnn.compiled_version)),
                          doctor::text(doctor::decode_cudnn_version(s.cudnn.loaded_version))) +
          " (built for CUDA " + doctor::cuda_version_text(s.cudnn.cuda_version) + ")");
  row(out, "cuBLAS",
      compiled_and_loaded(doctor::text(doctor::decode_cublas_version(s.cublas.compiled_version)),
                          doctor::text(doctor::decode_cublas_version(s.cublas.loaded_version))));
#else
  row(out, "CUDA", "not used: CPU-only build");
#endif
}

}  // namespace lb::cli
