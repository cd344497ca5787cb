// The CUDA backend (cuDNN and cuBLASLt) as the application sees it
// (harness/backend_descriptor.hpp).
#include "build_info.hpp"
#include "harness/doctor/versions.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_probe.hpp"

namespace lb::cuda {

const BackendDescriptor& descriptor() {
  static const BackendDescriptor cuda{
      .name = "cuda",
      .device_kind = DeviceKind::gpu,
      .probe = [](doctor::Snapshot& snapshot) { probe(snapshot); },
      .version_rows =
          [] {
            doctor::Snapshot s;
            probe_libraries(s);
            using doctor::compiled_and_loaded, doctor::decode_cublas_version,
                doctor::decode_cudnn_version, doctor::text;
            return std::vector<VersionRow>{
                {"CUDA runtime", doctor::cuda_version_text(s.runtime_version) +
                                     " (linked statically), architectures " +
                                     build::cuda_architectures},
                {"cuDNN", compiled_and_loaded(text(decode_cudnn_version(s.cudnn.compiled_version)),
                                              text(decode_cudnn_version(s.cudnn.loaded_version))) +
                              " (built for CUDA " +
                              doctor::cuda_version_text(s.cudnn.cuda_version) + ")"},
                {"cuBLAS",
                 compiled_and_loaded(text(decode_cublas_version(s.cublas.compiled_version)),
                                     text(decode_cublas_version(s.cublas.loaded_version)))}};
          },
      .libraries =
          [](const doctor::Snapshot& s) {
            using doctor::decode_cublas_version, doctor::decode_cudnn_version, doctor::text;
            return std::vector<std::pair<std::string, std::string>>{
                {"cuda_runtime", doctor::cuda_version_text(s.runtime_version)},
                {"driver", s.driver.version},
                {"cudnn", text(decode_cudnn_version(s.cudnn.loaded_version))},
                {"cublas", text(decode_cublas_version(s.cublas.loaded_version))}};
          },
      .options = option_declarations(),
      .make =
          [](int device_index, int, const BackendOptionValues& options) {
            return make_backend(device_index, parse_options(options));
          }};
  return cuda;
}

}  // namespace lb::cuda
