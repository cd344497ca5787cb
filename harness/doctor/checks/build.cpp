// A build without the CUDA backend cannot use a GPU, whatever the machine has.
#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {

void check_build(const CheckContext& c, Diagnosis& d) {
  if (c.s.nvidia.cuda_build) return;
  d.findings.push_back(
      {Severity::error,
       "build",
       "this layerbench was built without CUDA",
       {c.windows() ? "This Windows build of layerbench has no GPU backends (it checks the "
                      "NVIDIA DLLs frameworks load); to measure on the GPU, build layerbench "
                      "with CUDA under Linux or WSL2."
                    : "Install the CUDA toolkit and cuDNN, then rebuild layerbench with the "
                      "GPU backends: cmake -S . -B build -DLAYERBENCH_CUDA=ON (set CUDNN_ROOT "
                      "when cuDNN is not inside the toolkit)"}});
}

}  // namespace lb::doctor
