// CUDA found no GPU. Said only when nothing found earlier explains it: a driver error, an
// environment variable hiding every GPU, or the CUDA backend's plugin not loaded (then no
// device was probed, and the plugin's finding is the reason).
#include <algorithm>

#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {

void check_devices(const CheckContext& c, Diagnosis& d) {
  const auto error_about = [&](const char* subject) {
    return std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) {
      return f.subject == subject && f.severity == Severity::error;
    });
  };
  if (!c.s.nvidia.cuda_build || !c.s.nvidia.cuda_plugin.loaded || error_about("driver")) return;
  if (c.s.nvidia.device_count > 0 || error_about("env")) return;
  std::string message = "CUDA found no GPU";
  if (!c.s.nvidia.device_error.empty()) message += " (" + c.s.nvidia.device_error + ")";
  std::vector<std::string> fixes = {
      "Check that `nvidia-smi` lists a GPU; if it does not, the driver is not attached to one "
      "(reinstall the driver matching the GPU, then reboot)."};
  if (const auto v = c.env("CUDA_VISIBLE_DEVICES"))
    fixes.push_back("CUDA_VISIBLE_DEVICES=" + *v + " may name GPUs that do not exist: unset it.");
  d.findings.push_back({Severity::error, "devices", message, fixes});
}

}  // namespace lb::doctor
