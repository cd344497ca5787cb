// The CUDA backend (cuDNN and cuBLASLt) as the application sees it
// (harness/api/backend_descriptor.hpp): its libraries and plugin loaded at run time
// (cuda_loader.hpp).
#include <string>
#include <utility>
#include <vector>

#include "build_info.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/versions.hpp"
#include "kernels/cuda/loader/cuda_loader.hpp"
#include "kernels/cuda/logic/gpu_datasheet.hpp"
#include "kernels/cuda/nvml/nvml_processes.hpp"

namespace lb::cuda {
namespace {

void probe(doctor::Snapshot& s) {
  s.nvidia.cuda_build = true;
  s.nvidia.build_architectures = build::cuda_architectures;
  probe_libraries(s);
  if (s.nvidia.cuda_plugin.loaded)
    plugin().probe_devices(s);
  else
    s.nvidia.device_error = "not probed: the CUDA backend is not loaded";
}

// The doctor's NVIDIA-stack checks decide: driver, libraries, plugin and each GPU's code.
DeviceUsability usability(const doctor::Snapshot& s, const doctor::Facts& facts) {
  doctor::Diagnosis d = doctor::diagnose(s, facts);
  if (!d.gpu_usable) d.usable_gpus.clear();
  return {std::move(d.usable_gpus), std::move(d.verdict), std::move(d.fixes)};
}

// "compiled 9.13.0, loaded 9.13.0", or "compiled 9.13.0, NOT LOADED: why".
std::string library_row(const doctor::LibraryInfo& lib, doctor::LibraryVersion (*decode)(int)) {
  const std::string compiled = doctor::text(decode(lib.compiled_version));
  return lib.loaded
             ? doctor::compiled_and_loaded(compiled, doctor::text(decode(lib.loaded_version)))
             : "compiled " + compiled + ", NOT LOADED: " + lib.error;
}

}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor cuda{
      .name = "cuda",
      .device_kind = std::string(gpu_kind),
      .primary = true,
      .point_backends = {"cuda", "cudnn", "cublaslt"},
      .library_names = {{"cuda", "CUDA"}, {"cudnn", "cuDNN"}, {"cublaslt", "cuBLASLt"}},
      .probe = probe,
      .usability = usability,
      .version_rows =
          [] {
            doctor::Snapshot s;
            probe_libraries(s);
            const doctor::PluginInfo& plugin = s.nvidia.cuda_plugin;
            return std::vector<VersionRow>{
                {"CUDA runtime", doctor::cuda_version_text(s.nvidia.runtime_version) +
                                     " (linked statically into the CUDA backend), architectures " +
                                     build::cuda_architectures},
                {"cuDNN",
                 library_row(s.nvidia.cudnn, doctor::decode_cudnn_version) +
                     (s.nvidia.cudnn.loaded
                          ? " (built for CUDA " +
                                doctor::cuda_version_text(s.nvidia.cudnn.cuda_version) + ")"
                          : "")},
                {"cuBLAS", library_row(s.nvidia.cublas, doctor::decode_cublas_version)},
                {"CUDA backend",
                 plugin.loaded ? "loaded from " + plugin.path : "NOT LOADED: " + plugin.error}};
          },
      // A library that did not load has no version: "" (context.doctor says why).
      .libraries =
          [](const doctor::Snapshot& s) {
            using doctor::decode_cublas_version, doctor::decode_cudnn_version, doctor::text;
            return std::vector<std::pair<std::string, std::string>>{
                {"cuda_runtime", doctor::cuda_version_text(s.nvidia.runtime_version)},
                {"driver", s.nvidia.driver.version},
                {"cudnn", s.nvidia.cudnn.loaded
                              ? text(decode_cudnn_version(s.nvidia.cudnn.loaded_version))
                              : ""},
                {"cublas", s.nvidia.cublas.loaded
                               ? text(decode_cublas_version(s.nvidia.cublas.loaded_version))
                               : ""}};
          },
      .gpu_processes =
          [](const nlohmann::json& facts, std::string& error) {
            if (!facts.contains("pci_bus_id") || !facts.at("pci_bus_id").is_string()) {
              error = "the device record has no pci_bus_id";
              return std::optional<std::vector<GpuProcess>>();
            }
            return nvml_compute_processes(facts.at("pci_bus_id").get<std::string>(), error);
          },
      .describe = logic::describe_gpu,
      .options = option_declarations(),
      .make =
          [](int device_index, int, const BackendOptionValues& options) {
            return plugin().make_backend(device_index, parse_options(options));
          }};
  return cuda;
}

}  // namespace lb::cuda
