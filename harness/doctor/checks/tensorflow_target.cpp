// `doctor --for tensorflow==X.Y`: the machine against the build TensorFlow X.Y was tested with.
// On Windows the framework loads DLLs by name along the search order, whatever layerbench was
// built with: the CUDA and cuDNN found there are the ones that count.
#include <algorithm>
#include <stdexcept>

#include "harness/doctor/checks/check.hpp"
#include "harness/doctor/windows_dlls.hpp"

namespace lb::doctor {
namespace {

struct Target {
  const CheckContext& c;
  const FrameworkTarget& target;
  const TensorflowBuild& build;
  const TensorflowWindowsDlls* windows_dlls;  // null unless the DLL search ran
  std::string need_major() const { return std::to_string(cuda_major(build.cuda_version)); }
  // The DLL name of `family` TensorFlow loads, or empty.
  std::string wanted(const std::string& family) const {
    if (windows_dlls)
      for (const auto& name : windows_dlls->dlls)
        if (const DllFamily* f = dll_family(name); f && family == f->name) return name;
    return "";
  }
};

RequirementCheck cuda_requirement(const Target& t) {
  const Snapshot& s = t.c.s;
  const int need_cuda = t.build.cuda_version;
  RequirementCheck cuda{
      "CUDA", cuda_version_text(need_cuda) + " or a newer " + t.need_major() + ".x", "", false, ""};
  int found_cuda = s.nvidia.cuda_build ? s.nvidia.runtime_version : 0;
  if (s.nvidia.dll_search) {
    const DllInfo* cudart = find_dll(s, "cudart", t.wanted("cudart"));
    found_cuda = cudart && is_dotted_version(cudart->version, 2, 2)
                     ? parse_cuda_version(cudart->version)
                     : 0;
    cuda.found = !cudart ? "no cudart64_*.dll along the DLL search order"
                 : found_cuda > 0
                     ? cudart->version + " (" + cudart->name + " in " + where(*cudart) + ")"
                     : "version unknown (" + cudart->name + " in " + where(*cudart) + ")";
  } else if (!s.nvidia.cuda_build) {
    cuda.found = "unknown (this layerbench was built without CUDA)";
  } else {
    cuda.found = cuda_version_text(s.nvidia.runtime_version) +
                 " (the CUDA toolkit layerbench was built with)";
  }
  if (found_cuda > 0) {
    cuda.ok = cuda_major(found_cuda) == cuda_major(need_cuda) && found_cuda >= need_cuda;
    if (cuda_major(found_cuda) != cuda_major(need_cuda))
      cuda.note = "TensorFlow " + t.target.version + " loads CUDA " + t.need_major() +
                  " libraries; install CUDA " + t.need_major() + ".x next to CUDA " +
                  std::to_string(cuda_major(found_cuda)) + ".x";
    else if (!cuda.ok)
      cuda.note = "older than the CUDA TensorFlow " + t.target.version + " was tested with";
  }
  return cuda;
}

RequirementCheck cudnn_requirement(const Target& t) {
  const Snapshot& s = t.c.s;
  RequirementCheck cudnn{"cuDNN",
                         std::to_string(t.build.cudnn_major) + "." +
                             std::to_string(t.build.cudnn_minor) + " or a newer " +
                             std::to_string(t.build.cudnn_major) + ".x",
                         "", false, ""};
  std::optional<LibraryVersion> found;
  if (s.nvidia.dll_search) {
    const DllInfo* dll = find_dll(s, "cudnn", t.wanted("cudnn"));
    if (dll && is_dotted_version(dll->version, 3, 3)) {
      const auto parts = dotted(dll->version);
      found = LibraryVersion{parts[0], parts[1], parts[2]};
    }
    cudnn.found = !dll ? "no cudnn64_*.dll along the DLL search order"
                       : (found ? dll->version : "version unknown") + " (" + dll->name + " in " +
                             where(*dll) + ")";
  } else if (!s.nvidia.cuda_build || !s.nvidia.cudnn.loaded) {
    cudnn.found =
        s.nvidia.cuda_build ? "not loaded" : "unknown (this layerbench was built without CUDA)";
  } else {
    found = decode_cudnn_version(s.nvidia.cudnn.loaded_version);
    cudnn.found = text(*found);
  }
  if (found) {
    cudnn.ok = found->major == t.build.cudnn_major && found->minor >= t.build.cudnn_minor;
    if (found->major != t.build.cudnn_major)
      cudnn.note = "a different major version: TensorFlow " + t.target.version + " needs cuDNN " +
                   std::to_string(t.build.cudnn_major) + ".x";
  }
  return cudnn;
}

RequirementCheck driver_requirement_check(const Target& t) {
  const DriverInfo& driver = t.c.s.nvidia.driver;
  const int need_cuda = t.build.cuda_version;
  RequirementCheck check{
      "NVIDIA driver",
      "support for CUDA " + cuda_version_text(need_cuda) + ", " + t.c.driver_requirement(need_cuda),
      "", false, ""};
  if (!driver.loaded) {
    check.found = "not found";
    return check;
  }
  check.found =
      (driver.version.empty() ? std::string("version unknown") : driver.version) +
      (driver.max_cuda_version > 0 ? ", supports CUDA " + cuda_version_text(driver.max_cuda_version)
                                   : "");
  const std::string min = t.c.minimum_driver_for(need_cuda);
  if (driver.max_cuda_version > 0)
    check.ok = cuda_major(driver.max_cuda_version) >= cuda_major(need_cuda);
  else
    check.ok = !driver.version.empty() && !min.empty() && version_at_least(driver.version, min);
  if (check.ok && driver.max_cuda_version > 0 && driver.max_cuda_version < need_cuda)
    check.note = "older minor version: runs under minor-version compatibility";
  return check;
}

RequirementCheck platform_requirement(const Target& t) {
  const bool windows = t.c.windows();
  const std::string& last = t.c.facts.tensorflow_windows_native_last;
  auto release = dotted(t.target.version);
  release.resize(2);  // 2.10.1 is a 2.10 release
  RequirementCheck platform{"platform", "", windows ? "native Windows" : t.c.s.os, true, ""};
  if (release > dotted(last)) {
    platform.required =
        "Linux or WSL2 (native Windows GPU support ends at TensorFlow " + last + ")";
    platform.ok = !windows;
    if (windows)
      platform.note = "run TensorFlow " + t.target.version + " inside WSL2 to use the GPU";
  } else {
    platform.required =
        "Linux, or native Windows (GPU support there ends at TensorFlow " + last + ")";
    if (windows)
      platform.note =
          "TensorFlow looks for DLLs named by version, e.g. cudart64_110.dll (all CUDA "
          "11.x) and cudnn64_8.dll; a DLL of another version is not found";
  }
  return platform;
}

// Each DLL that TensorFlow loads by name, and where the search order finds it.
RequirementCheck dll_requirement(const Target& t, const std::string& name) {
  const std::string family = dll_family(name)->name;  // the facts loader checked it
  RequirementCheck dll{name, "loaded by TensorFlow " + t.target.version + " by this name", "",
                       false, ""};
  const DllInfo* found = find_dll(t.c.s, family, name);
  dll.ok = found && lower_equal(found->name, name);
  if (dll.ok) {
    dll.found = where(*found);
    return dll;
  }
  dll.found =
      "not found along the DLL search order" +
      (found ? "; " + found->name + " in " + where(*found) + " is another version" : std::string());
  dll.note = family == "cudnn"
                 ? "install cuDNN " + std::to_string(t.build.cudnn_major) + "." +
                       std::to_string(t.build.cudnn_minor) + " for CUDA " + t.need_major() +
                       ".x and put the folder holding " + name + " on PATH"
                 : "install the CUDA toolkit " + cuda_version_text(t.build.cuda_version) +
                       " and put its bin folder, which holds " + name + ", on PATH";
  return dll;
}

}  // namespace

FrameworkTarget parse_framework_target(const std::string& spec) {
  const auto eq = spec.find("==");
  if (eq == std::string::npos)
    throw std::invalid_argument("expected FRAMEWORK==VERSION, e.g. tensorflow==2.15, got \"" +
                                spec + "\"");
  FrameworkTarget t{spec.substr(0, eq), spec.substr(eq + 2)};
  if (t.framework != "tensorflow")
    throw std::invalid_argument("unknown framework \"" + t.framework + "\" (known: tensorflow)");
  if (!is_dotted_version(t.version, 2, 3))
    throw std::invalid_argument("\"" + t.version +
                                "\" is not a TensorFlow version such as 2.15 or 2.15.1");
  return t;
}

const TensorflowBuild& tested_build(const Facts& facts, const FrameworkTarget& target) {
  const TensorflowBuild* build = tensorflow_build(facts, target.version);
  if (!build) {
    std::string known = facts.tensorflow.empty() ? "none"
                                                 : facts.tensorflow.front().first + " to " +
                                                       facts.tensorflow.back().last;
    throw std::invalid_argument("TensorFlow " + target.version +
                                " is not in layerbench's table of tested builds (known: " + known +
                                ")");
  }
  return *build;
}

FrameworkCheck check_framework(const Snapshot& s, const Facts& facts,
                               const FrameworkTarget& target) {
  const TensorflowBuild& build = tested_build(facts, target);
  const CheckContext c{s, facts};
  const Target t{c, target, build,
                 s.nvidia.dll_search ? tensorflow_windows_dlls(facts, target.version) : nullptr};
  FrameworkCheck check{target,
                       "CUDA " + cuda_version_text(build.cuda_version) + ", cuDNN " +
                           std::to_string(build.cudnn_major) + "." +
                           std::to_string(build.cudnn_minor) + " (Linux)",
                       {cuda_requirement(t), cudnn_requirement(t), driver_requirement_check(t),
                        platform_requirement(t)},
                       false};
  if (t.windows_dlls)
    for (const auto& name : t.windows_dlls->dlls) check.checks.push_back(dll_requirement(t, name));
  check.all_ok = std::all_of(check.checks.begin(), check.checks.end(),
                             [](const RequirementCheck& r) { return r.ok; });
  return check;
}

}  // namespace lb::doctor
