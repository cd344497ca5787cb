#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {

void check_driver(const CheckContext&, Diagnosis&);
void check_windows_dlls(const CheckContext&, Diagnosis&);
void check_build(const CheckContext&, Diagnosis&);
void check_environment(const CheckContext&, Diagnosis&);
void check_devices(const CheckContext&, Diagnosis&);
void check_gpus(const CheckContext&, Diagnosis&);
void check_cudnn(const CheckContext&, Diagnosis&);
void check_cublas(const CheckContext&, Diagnosis&);
void check_cuda_plugin(const CheckContext&, Diagnosis&);

const std::vector<DoctorCheck>& doctor_checks() {
  // The driver first: without it no build of layerbench can use a GPU.
  static const std::vector<DoctorCheck> checks = {
      {"NVIDIA driver", check_driver},
      {"Windows DLL search", check_windows_dlls},
      {"CUDA build", check_build},
      {"environment variables", check_environment},
      {"CUDA devices", check_devices},
      {"GPUs", check_gpus},
      {"cuDNN", check_cudnn},
      {"cuBLAS", check_cublas},
      {"CUDA backend plugin", check_cuda_plugin},
  };
  return checks;
}

}  // namespace lb::doctor
