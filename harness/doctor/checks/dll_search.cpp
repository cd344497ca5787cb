// Windows: every NVIDIA DLL found and the folder it came from, the families with none, and a
// driver too old for a CUDA runtime DLL (the runtime a framework loads, not layerbench's).
#include "harness/doctor/checks/check.hpp"
#include "harness/doctor/windows_dlls.hpp"

namespace lb::doctor {

void check_windows_dlls(const CheckContext& c, Diagnosis& d) {
  if (!c.s.nvidia.dll_search) return;
  auto& out = d.findings;
  const std::string search_order =
      "along the DLL search order (application folder, System32, Windows folder, current "
      "folder, PATH)";
  for (const auto& family : nvidia_dll_families()) {
    const std::string name = family.name;
    if (name == "driver" || name == "cudnn_sublibrary" || find_dll(c.s, name)) continue;
    out.push_back({Severity::info,
                   "dlls",
                   std::string("no ") + family.display + " DLL (" + family.prefix + "*" +
                       family.suffix + ") " + search_order,
                   {}});
  }
  for (const auto& dll : c.s.nvidia.dlls)
    out.push_back({Severity::info,
                   "dlls",
                   dll.name + (dll.version.empty() ? "" : " " + dll.version) + " in " + where(dll) +
                       (dll.error.empty() ? "" : "; version unknown: " + dll.error),
                   {}});
  const DriverInfo& driver = c.s.nvidia.driver;
  if (!driver.loaded || driver.max_cuda_version <= 0) return;
  for (const auto& dll : c.s.nvidia.dlls) {
    if (dll.family != "cudart" || !is_dotted_version(dll.version, 2, 2)) continue;
    const int runtime = parse_cuda_version(dll.version);
    if (cuda_major(driver.max_cuda_version) >= cuda_major(runtime)) continue;
    out.push_back({Severity::error,
                   "driver",
                   "NVIDIA driver supports CUDA up to " +
                       cuda_version_text(driver.max_cuda_version) + ", too old for the CUDA " +
                       dll.version + " runtime " + dll.name + " in " + where(dll),
                   {"Update the NVIDIA driver: CUDA " + dll.version + " needs " +
                    c.driver_requirement(runtime) + "."}});
  }
}

}  // namespace lb::doctor
