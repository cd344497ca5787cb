// The NVIDIA driver: missing, or too old for this build's CUDA runtime, it blocks every GPU.
#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {
namespace {

Finding driver_not_found(const CheckContext& c) {
  const DriverInfo& d = c.s.nvidia.driver;
  const int runtime = c.s.nvidia.runtime_version;
  // The loader's own message is in the snapshot; the reason stays one short line.
  Finding f{Severity::error,
            "driver",
            "NVIDIA driver not found (" + d.library + " cannot be loaded)",
            {}};
  const std::string need = runtime > 0 ? " (this build's CUDA " + cuda_version_text(runtime) +
                                             " runtime needs " + c.driver_requirement(runtime) + ")"
                                       : "";
  if (c.windows()) {
    f.fixes = {"Install the NVIDIA driver for your GPU" + need +
                   "; it puts nvcuda.dll in "
                   "C:\\Windows\\System32.",
               windows_dll_note()};
  } else {
    f.fixes = {"Install the NVIDIA driver for your GPU" + need +
                   "; afterwards `nvidia-smi` "
                   "must list the GPU.",
               "In a container: start it with the GPU passed through, e.g. `docker run --gpus "
               "all` (needs the NVIDIA Container Toolkit on the host).",
               "Under WSL2: install the NVIDIA driver on the Windows side; it provides "
               "libcuda.so.1 inside WSL2."};
  }
  return f;
}

}  // namespace

void check_driver(const CheckContext& c, Diagnosis& diagnosis) {
  auto& out = diagnosis.findings;
  const DriverInfo& d = c.s.nvidia.driver;
  const int runtime = c.s.nvidia.runtime_version;
  if (!d.loaded) {
    out.push_back(driver_not_found(c));
    return;
  }
  if (runtime <= 0) return;
  const std::string name =
      d.version.empty() ? "the installed NVIDIA driver" : "NVIDIA driver " + d.version;
  const std::string min = c.minimum_driver_for(runtime);
  bool too_old = false;
  if (d.max_cuda_version > 0)
    too_old = cuda_major(d.max_cuda_version) < cuda_major(runtime);
  else if (!d.version.empty() && !min.empty())
    too_old = !version_at_least(d.version, min);
  if (too_old) {
    std::string message = name;
    if (d.max_cuda_version > 0)
      message += " supports CUDA up to " + cuda_version_text(d.max_cuda_version);
    else
      message += " is older than " + min;
    message += ", too old for this build's CUDA " + cuda_version_text(runtime) + " runtime";
    std::vector<std::string> fixes = {"Update the NVIDIA driver: CUDA " +
                                      cuda_version_text(runtime) + " needs " +
                                      c.driver_requirement(runtime) + "."};
    if (d.max_cuda_version > 0)
      fixes.push_back("Or rebuild layerbench with a CUDA toolkit no newer than " +
                      cuda_version_text(d.max_cuda_version) + ".");
    out.push_back({Severity::error, "driver", message, fixes});
    return;
  }
  if (d.max_cuda_version > 0 && d.max_cuda_version < runtime)
    out.push_back({Severity::warning,
                   "driver",
                   name + " supports CUDA " + cuda_version_text(d.max_cuda_version) +
                       ", older than the CUDA " + cuda_version_text(runtime) +
                       " runtime: it runs under minor-version compatibility, but features that "
                       "need a newer driver fail",
                   {"Update the NVIDIA driver to one that supports CUDA " +
                    cuda_version_text(runtime) + "."}});
}

}  // namespace lb::doctor
