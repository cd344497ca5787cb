#include "harness/doctor/diagnose.hpp"

#include <algorithm>

#include "harness/doctor/checks/check.hpp"
#include "harness/doctor/versions.hpp"

namespace lb::doctor {

const char* name(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "?";
}

namespace {

std::string ready_verdict(const Snapshot& s, const Diagnosis& d) {
  std::string gpus;
  for (int index : d.usable_gpus) {
    const auto& g = *std::find_if(s.nvidia.gpus.begin(), s.nvidia.gpus.end(),
                                  [&](const GpuInfo& x) { return x.index == index; });
    gpus += (gpus.empty() ? "" : "; ") +
            ("GPU " + std::to_string(g.index) + " " + g.name + " (compute capability " +
             cc_text(g) + ", " + std::to_string(g.sm_count) + " SMs, " + gib(g.memory_total) + ")");
  }
  std::string driver = s.nvidia.driver.version.empty() ? "NVIDIA driver"
                                                       : "NVIDIA driver " + s.nvidia.driver.version;
  if (s.nvidia.driver.max_cuda_version > 0)
    driver += " (supports CUDA " + cuda_version_text(s.nvidia.driver.max_cuda_version) + ")";
  return "GPU ready: " + gpus + "; CUDA runtime " + cuda_version_text(s.nvidia.runtime_version) +
         ", " + driver;
}

}  // namespace

const DllInfo* find_dll(const Snapshot& s, const std::string& family, const std::string& wanted) {
  const DllInfo* first = nullptr;
  for (const auto& dll : s.nvidia.dlls) {
    if (dll.family != family) continue;
    if (!wanted.empty() && lower_equal(dll.name, wanted)) return &dll;
    if (!first) first = &dll;
  }
  return first;
}

// CUDA stops at the first invalid entry, so a first entry of "-1" hides every GPU.
bool visible_devices_hide_all(const std::string& value) {
  const std::string first = value.substr(0, value.find(','));
  return first.find_first_not_of(" \t") == std::string::npos || first.find('-') == 0;
}

std::string driver_requirement(const Snapshot& snapshot, const Facts& facts, int cuda_version) {
  return CheckContext{snapshot, facts}.driver_requirement(cuda_version);
}

Diagnosis diagnose(const Snapshot& s, const Facts& facts) {
  const CheckContext c{s, facts};
  Diagnosis d;
  for (const auto& check : doctor_checks()) check.run(c, d);
  auto& out = d.findings;
  // Blocking problems first, in the order checked: the first is the reason.
  std::stable_partition(out.begin(), out.end(),
                        [](const Finding& f) { return f.severity == Severity::error; });
  for (const auto& f : out) {
    if (f.severity != Severity::error) continue;
    if (d.reason.empty()) d.reason = f.message;
    for (const auto& fix : f.fixes)
      if (std::find(d.fixes.begin(), d.fixes.end(), fix) == d.fixes.end()) d.fixes.push_back(fix);
  }
  if (d.reason.empty() && d.usable_gpus.empty()) d.reason = "no GPU found";
  d.gpu_usable = d.reason.empty();
  if (s.nvidia.cuda_build && s.nvidia.runtime_version > 0)
    d.driver_needed = c.driver_requirement(s.nvidia.runtime_version);
  d.verdict = d.gpu_usable ? ready_verdict(s, d) : "No usable GPU: " + d.reason;
  return d;
}

}  // namespace lb::doctor
