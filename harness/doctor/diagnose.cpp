#include "harness/doctor/diagnose.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <regex>
#include <stdexcept>

#include "harness/doctor/loader_message.hpp"
#include "harness/doctor/versions.hpp"
#include "harness/doctor/windows_dlls.hpp"

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

std::string gib(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buffer;
}

std::string cc_text(const GpuInfo& g) {
  return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
}

std::string gpu_label(const GpuInfo& g) {
  return "GPU " + std::to_string(g.index) + " (" + g.name + ", compute capability " + cc_text(g) +
         ")";
}

// "75;80-real;90-virtual" -> {75, 80, 90}; CMake's CUDA_ARCHITECTURES syntax.
std::vector<int> architectures(const std::string& list) {
  std::vector<int> archs;
  static const std::regex number(R"(\d+)");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), number);
       it != std::sregex_iterator(); ++it)
    archs.push_back(std::stoi(it->str()));
  return archs;
}

struct Context {
  const Snapshot& s;
  const Facts& facts;
  bool windows() const { return s.os == "windows"; }
  const char* library_path_variable() const { return windows() ? "PATH" : "LD_LIBRARY_PATH"; }
  // The minimum driver for this build's runtime on this OS, or empty when the facts lack it.
  std::string minimum_driver_for(int cuda_version) const {
    const DriverMinimum* d = minimum_driver(facts, cuda_version);
    if (!d) return "";
    return windows() ? d->windows_driver : d->linux_driver;
  }
  std::string driver_requirement(int cuda_version) const {
    const std::string min = minimum_driver_for(cuda_version);
    const std::string os = windows() ? "Windows" : "Linux";
    if (min.empty())
      return "a driver whose supported CUDA version (shown by nvidia-smi) is at least " +
             cuda_version_text(cuda_version) + "; layerbench's facts do not record the " + os +
             " minimum for CUDA " + std::to_string(cuda_major(cuda_version)) + ".x";
    return "driver >= " + min + ", the " + os + " minimum for CUDA " +
           std::to_string(cuda_major(cuda_version)) + ".x";
  }
};

bool lower_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string windows_dll_note() {
  return "Windows finds nvcuda.dll (the driver, in System32), cudart64_*.dll, cudnn64_*.dll and "
         "cublas64_*.dll through PATH; the names carry the version, so a DLL of another version "
         "counts as not found.";
}

void check_build(const Context& c, std::vector<Finding>& out) {
  if (c.s.cuda_build) return;
  out.push_back(
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

std::string where(const DllInfo& dll) { return dll.folder + " (" + dll.origin + ")"; }

// Windows: every NVIDIA DLL found and the folder it came from, the families with none, and a
// driver too old for a CUDA runtime DLL (the runtime a framework loads, not layerbench's).
void check_windows_dlls(const Context& c, std::vector<Finding>& out) {
  if (!c.s.dll_search) return;
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
  for (const auto& dll : c.s.dlls)
    out.push_back({Severity::info,
                   "dlls",
                   dll.name + (dll.version.empty() ? "" : " " + dll.version) + " in " + where(dll) +
                       (dll.error.empty() ? "" : "; version unknown: " + dll.error),
                   {}});
  const DriverInfo& driver = c.s.driver;
  if (!driver.loaded || driver.max_cuda_version <= 0) return;
  for (const auto& dll : c.s.dlls) {
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

// False when the driver blocks every GPU (missing or too old for the runtime).
bool check_driver(const Context& c, std::vector<Finding>& out) {
  const DriverInfo& d = c.s.driver;
  const int runtime = c.s.runtime_version;
  if (!d.loaded) {
    // The loader's own message is in the snapshot; the reason stays one short line.
    Finding f{Severity::error,
              "driver",
              "NVIDIA driver not found (" + d.library + " cannot be loaded)",
              {}};
    const std::string need = runtime > 0
                                 ? " (this build's CUDA " + cuda_version_text(runtime) +
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
    out.push_back(f);
    return false;
  }
  if (runtime <= 0) return true;
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
    return false;
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
  return true;
}

std::optional<std::string> env(const Snapshot& s, const std::string& key) {
  const auto it = s.env.find(key);
  return it == s.env.end() ? std::nullopt : it->second;
}

void check_environment(const Context& c, std::vector<Finding>& out) {
  if (const auto v = env(c.s, "CUDA_VISIBLE_DEVICES")) {
    if (visible_devices_hide_all(*v))
      out.push_back(
          {Severity::error,
           "env",
           "CUDA_VISIBLE_DEVICES=\"" + *v + "\" hides every GPU",
           {c.windows()
                ? "Clear it (`set CUDA_VISIBLE_DEVICES=`) or list the GPUs to use, e.g. 0."
                : "Unset it (`unset CUDA_VISIBLE_DEVICES`) or list the GPUs to use, e.g. 0."}});
    else
      out.push_back({Severity::info,
                     "env",
                     "CUDA_VISIBLE_DEVICES=" + *v +
                         ": only these GPUs are visible, numbered from 0 in this order",
                     {}});
  }
  if (const auto v = env(c.s, "NVIDIA_TF32_OVERRIDE"); v && *v == "0")
    out.push_back(
        {Severity::warning,
         "env",
         "NVIDIA_TF32_OVERRIDE=0 turns TF32 Tensor Core math off in cuBLAS and cuDNN: TF32 "
         "points run as plain FP32",
         {"Unset NVIDIA_TF32_OVERRIDE to measure TF32."}});
  if (const auto v = env(c.s, "CUBLAS_WORKSPACE_CONFIG"))
    out.push_back({Severity::info,
                   "env",
                   "CUBLAS_WORKSPACE_CONFIG=" + *v +
                       " fixes cuBLAS's workspace (set for deterministic "
                       "results); it can change which GEMM algorithms cuBLAS may use",
                   {}});
  if (const auto v = env(c.s, c.library_path_variable()); v && !v->empty())
    out.push_back(
        {Severity::info,
         "env",
         std::string(c.library_path_variable()) + " is set: libraries found there " +
             (c.windows() ? "are found before others; " + windows_dll_note()
                          : "take precedence over the run path layerbench was built with"),
         {}});
}

void check_devices(const Context& c, bool hidden_by_env, std::vector<Finding>& out) {
  if (c.s.device_count > 0 || hidden_by_env) return;
  std::string message = "CUDA found no GPU";
  if (!c.s.device_error.empty()) message += " (" + c.s.device_error + ")";
  std::vector<std::string> fixes = {
      "Check that `nvidia-smi` lists a GPU; if it does not, the driver is not attached to one "
      "(reinstall the driver matching the GPU, then reboot)."};
  if (const auto v = env(c.s, "CUDA_VISIBLE_DEVICES"))
    fixes.push_back("CUDA_VISIBLE_DEVICES=" + *v + " may name GPUs that do not exist: unset it.");
  out.push_back({Severity::error, "devices", message, fixes});
}

void check_gpus(const Context& c, Diagnosis& d, std::vector<Finding>& out) {
  const auto archs = architectures(c.s.build_architectures);
  std::vector<Finding> no_code;
  for (const auto& g : c.s.gpus) {
    d.tensor_cores[g.index] = tensor_core_precisions(c.facts, g.cc_major, g.cc_minor);
    if (g.build_has_code) {
      d.usable_gpus.push_back(g.index);
    } else {
      const int cc = g.cc_major * 10 + g.cc_minor;
      const std::string sm = std::to_string(cc);
      Finding f{Severity::error,
                "gpu " + std::to_string(g.index),
                gpu_label(g) + ": this build carries no code for it (built for " +
                    (c.s.build_architectures.empty() ? "unknown architectures"
                                                     : c.s.build_architectures) +
                    ")",
                {}};
      const int oldest = archs.empty() ? 0 : *std::min_element(archs.begin(), archs.end());
      if (!archs.empty() && cc < oldest) {
        f.message += "; compute capability " + cc_text(g) + " is older than the oldest built, " +
                     std::to_string(oldest / 10) + "." + std::to_string(oldest % 10);
        f.fixes = {"Rebuild with -DCMAKE_CUDA_ARCHITECTURES=\"" + sm + ";" +
                   c.s.build_architectures +
                   "\" using a CUDA toolkit whose nvcc still supports sm_" + sm +
                   " (check with `nvcc --list-gpu-arch`)."};
      } else {
        f.fixes = {"Rebuild with " + sm +
                   " added to -DCMAKE_CUDA_ARCHITECTURES (or \"native\" on this machine)."};
      }
      no_code.push_back(f);
    }
    if (static_cast<double>(g.memory_total) < kSmallGpuMemoryBytes)
      out.push_back({Severity::warning,
                     "gpu " + std::to_string(g.index),
                     gpu_label(g) + " has " + gib(g.memory_total) +
                         ", less than 6 GB: the larger layers at large batch sizes may not fit",
                     {"Use smaller batch sizes on this GPU."}});
  }
  // A GPU without code only blocks when no other GPU can run.
  for (auto& f : no_code) {
    if (!d.usable_gpus.empty()) f.severity = Severity::warning;
    out.push_back(f);
  }
}

// "cuDNN 9 for CUDA 13.x": the release this build needs of a library.
std::string needed_release(const Context& c, const char* display, const LibraryInfo& lib,
                           LibraryVersion (*decode)(int)) {
  return std::string(display) + " " + std::to_string(decode(lib.compiled_version).major) +
         " for CUDA " + std::to_string(cuda_major(c.s.runtime_version)) + ".x";
}

// What to do about a file the loader found first but cannot use.
std::string broken_file_fix(const Context& c, const std::string& file, const std::string& release) {
  return "Remove or fix " + file + ": the loader takes the first file of its name along " +
         c.library_path_variable() +
         ", then the run path layerbench was built with. Or reinstall " + release + ".";
}

void check_library(const Context& c, const char* subject, const char* display,
                   const LibraryInfo& lib, LibraryVersion (*decode)(int),
                   const std::string& windows_dll, std::vector<Finding>& out) {
  const LibraryVersion built = decode(lib.compiled_version);
  const std::string where = lib.path.empty() ? "" : " from " + lib.path;
  if (!lib.loaded) {
    std::string message = std::string(display) + " could not be loaded";
    if (!lib.error.empty()) message += " (" + lib.error + ")";
    const std::string release = needed_release(c, display, lib, decode);
    std::string fix;
    if (c.windows())
      fix = "Install " + release + " and put the folder holding " + windows_dll + " on PATH.";
    else if (!lib.path.empty())  // a file of its name was found: it is broken or not the library
      fix = broken_file_fix(c, lib.path, release);
    else
      fix = "Install " + release +
            " where layerbench was built against it, or add its folder to LD_LIBRARY_PATH.";
    out.push_back({Severity::error, subject, message, {fix}});
    return;
  }
  const LibraryVersion loaded = decode(lib.loaded_version);
  if (loaded.major != built.major) {
    out.push_back({Severity::error,
                   subject,
                   std::string(display) + ": built against " + text(built) + " but loaded " +
                       text(loaded) + where + " (a different major version)",
                   {"Make layerbench load " + std::string(display) + " " +
                    std::to_string(built.major) + ": remove the folder holding " + text(loaded) +
                    " from " + c.library_path_variable() + ", or rebuild layerbench against " +
                    std::string(display) + " " + std::to_string(loaded.major) + "."}});
    return;
  }
  if (lib.loaded_version < lib.compiled_version)
    out.push_back({Severity::warning,
                   subject,
                   std::string(display) + ": loaded " + text(loaded) + where +
                       " is older than the " + text(built) + " layerbench was built against",
                   {"Install " + std::string(display) + " " + text(built) + " or newer " +
                    std::to_string(built.major) + ".x."}});
  if (lib.cuda_version > 0 && c.s.runtime_version > 0 &&
      cuda_major(lib.cuda_version) != cuda_major(c.s.runtime_version))
    out.push_back({Severity::warning,
                   subject,
                   std::string(display) + " " + text(loaded) + " was built for CUDA " +
                       cuda_version_text(lib.cuda_version) + ", layerbench's runtime is CUDA " +
                       cuda_version_text(c.s.runtime_version),
                   {"Install the " + std::string(display) + " build for CUDA " +
                    std::to_string(cuda_major(c.s.runtime_version)) + ".x."}});
}

// The CUDA backend's plugin, once cuDNN and cuBLAS have loaded (if one has not, its own finding
// says why): the loader's message, and the file at fault where it can be told.
void check_cuda_plugin(const Context& c, std::vector<Finding>& out) {
  const PluginInfo& plugin = c.s.cuda_plugin;
  if (plugin.loaded || !c.s.cudnn.loaded || !c.s.cublas.loaded) return;
  Finding f{
      Severity::error, "cuda", "the CUDA backend cannot be loaded (" + plugin.error + ")", {}};
  std::string file = file_in_loader_message(plugin.error);
  if (file == plugin.path) file.clear();  // the plugin itself, or a symbol one of them lacks
  const std::string symbol = undefined_symbol_in_loader_message(plugin.error);
  const bool cudnn =
      file.empty() ? symbol.rfind("cudnn", 0) == 0 : file.find("/libcudnn") != std::string::npos;
  const bool cublas =
      file.empty() ? symbol.rfind("cublas", 0) == 0 : file.find("/libcublas") != std::string::npos;
  if (file.empty() && cudnn) file = c.s.cudnn.path;
  if (file.empty() && cublas) file = c.s.cublas.path;
  if (!file.empty()) {
    if (!symbol.empty()) f.message += ": " + file + " lacks " + symbol;
    const std::string release = cudnn ? needed_release(c, "cuDNN", c.s.cudnn, decode_cudnn_version)
                                : cublas
                                    ? needed_release(c, "cuBLAS", c.s.cublas, decode_cublas_version)
                                    : "the CUDA toolkit and cuDNN layerbench was built with";
    f.fixes = {broken_file_fix(c, file, release)};
  } else {
    f.fixes = {
        "Rebuild layerbench (cmake --build) or reinstall it (cmake --install): the binary "
        "needs its CUDA backend " +
        plugin.path + ", whole and from the same build."};
  }
  out.push_back(f);
}

std::string ready_verdict(const Snapshot& s, const Diagnosis& d) {
  std::string gpus;
  for (int index : d.usable_gpus) {
    const auto& g = *std::find_if(s.gpus.begin(), s.gpus.end(),
                                  [&](const GpuInfo& x) { return x.index == index; });
    gpus += (gpus.empty() ? "" : "; ") +
            ("GPU " + std::to_string(g.index) + " " + g.name + " (compute capability " +
             cc_text(g) + ", " + std::to_string(g.sm_count) + " SMs, " + gib(g.memory_total) + ")");
  }
  std::string driver =
      s.driver.version.empty() ? "NVIDIA driver" : "NVIDIA driver " + s.driver.version;
  if (s.driver.max_cuda_version > 0)
    driver += " (supports CUDA " + cuda_version_text(s.driver.max_cuda_version) + ")";
  return "GPU ready: " + gpus + "; CUDA runtime " + cuda_version_text(s.runtime_version) + ", " +
         driver;
}

}  // namespace

const DllInfo* find_dll(const Snapshot& s, const std::string& family, const std::string& wanted) {
  const DllInfo* first = nullptr;
  for (const auto& dll : s.dlls) {
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
  return Context{snapshot, facts}.driver_requirement(cuda_version);
}

Diagnosis diagnose(const Snapshot& s, const Facts& facts) {
  const Context c{s, facts};
  Diagnosis d;
  auto& out = d.findings;
  // The driver first: without it no build of layerbench can use a GPU.
  check_driver(c, out);
  check_windows_dlls(c, out);
  check_build(c, out);
  const std::size_t before_env = out.size();
  check_environment(c, out);
  const bool hidden = std::any_of(out.begin() + before_env, out.end(),
                                  [](const Finding& f) { return f.severity == Severity::error; });
  const bool driver_ok = std::none_of(out.begin(), out.begin() + before_env, [](const Finding& f) {
    return f.subject == "driver" && f.severity == Severity::error;
  });
  // Without the plugin no device was probed: its finding below is the reason.
  if (s.cuda_build && driver_ok && s.cuda_plugin.loaded) check_devices(c, hidden, out);
  check_gpus(c, d, out);
  if (s.cuda_build) {
    check_library(
        c, "cudnn", "cuDNN", s.cudnn, decode_cudnn_version,
        "cudnn64_" + std::to_string(decode_cudnn_version(s.cudnn.compiled_version).major) + ".dll",
        out);
    check_library(c, "cublas", "cuBLAS", s.cublas, decode_cublas_version, "cublas64_*.dll", out);
    check_cuda_plugin(c, out);
  }
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
  if (s.cuda_build && s.runtime_version > 0)
    d.driver_needed = c.driver_requirement(s.runtime_version);
  d.verdict = d.gpu_usable ? ready_verdict(s, d) : "No usable GPU: " + d.reason;
  return d;
}

// --- --for tensorflow==X.Y ---

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
  const TensorflowBuild* build = &tested_build(facts, target);
  const Context c{s, facts};
  FrameworkCheck check{target,
                       "CUDA " + cuda_version_text(build->cuda_version) + ", cuDNN " +
                           std::to_string(build->cudnn_major) + "." +
                           std::to_string(build->cudnn_minor) + " (Linux)",
                       {},
                       false};
  const int need_cuda = build->cuda_version;
  const std::string need_major = std::to_string(cuda_major(need_cuda));

  RequirementCheck cuda{"CUDA", cuda_version_text(need_cuda) + " or a newer " + need_major + ".x",
                        "", false, ""};
  // On Windows the framework loads DLLs by name along the search order, whatever layerbench
  // was built with: the CUDA and cuDNN found there are the ones that count.
  const TensorflowWindowsDlls* windows_dlls =
      s.dll_search ? tensorflow_windows_dlls(facts, target.version) : nullptr;
  const auto wanted = [&](const std::string& family) -> std::string {
    if (windows_dlls)
      for (const auto& name : windows_dlls->dlls)
        if (const DllFamily* f = dll_family(name); f && family == f->name) return name;
    return "";
  };
  int found_cuda = s.cuda_build ? s.runtime_version : 0;
  if (s.dll_search) {
    const DllInfo* cudart = find_dll(s, "cudart", wanted("cudart"));
    found_cuda = cudart && is_dotted_version(cudart->version, 2, 2)
                     ? parse_cuda_version(cudart->version)
                     : 0;
    cuda.found = !cudart ? "no cudart64_*.dll along the DLL search order"
                 : found_cuda > 0
                     ? cudart->version + " (" + cudart->name + " in " + where(*cudart) + ")"
                     : "version unknown (" + cudart->name + " in " + where(*cudart) + ")";
  } else if (!s.cuda_build) {
    cuda.found = "unknown (this layerbench was built without CUDA)";
  } else {
    cuda.found =
        cuda_version_text(s.runtime_version) + " (the CUDA toolkit layerbench was built with)";
  }
  if (found_cuda > 0) {
    cuda.ok = cuda_major(found_cuda) == cuda_major(need_cuda) && found_cuda >= need_cuda;
    if (cuda_major(found_cuda) != cuda_major(need_cuda))
      cuda.note = "TensorFlow " + target.version + " loads CUDA " + need_major +
                  " libraries; install CUDA " + need_major + ".x next to CUDA " +
                  std::to_string(cuda_major(found_cuda)) + ".x";
    else if (!cuda.ok)
      cuda.note = "older than the CUDA TensorFlow " + target.version + " was tested with";
  }
  check.checks.push_back(cuda);

  RequirementCheck cudnn{"cuDNN",
                         std::to_string(build->cudnn_major) + "." +
                             std::to_string(build->cudnn_minor) + " or a newer " +
                             std::to_string(build->cudnn_major) + ".x",
                         "", false, ""};
  std::optional<LibraryVersion> found_cudnn;
  if (s.dll_search) {
    const DllInfo* dll = find_dll(s, "cudnn", wanted("cudnn"));
    if (dll && is_dotted_version(dll->version, 3, 3)) {
      const auto parts = dotted(dll->version);
      found_cudnn = LibraryVersion{parts[0], parts[1], parts[2]};
    }
    cudnn.found = !dll ? "no cudnn64_*.dll along the DLL search order"
                       : (found_cudnn ? dll->version : "version unknown") + " (" + dll->name +
                             " in " + where(*dll) + ")";
  } else if (!s.cuda_build || !s.cudnn.loaded) {
    cudnn.found = s.cuda_build ? "not loaded" : "unknown (this layerbench was built without CUDA)";
  } else {
    found_cudnn = decode_cudnn_version(s.cudnn.loaded_version);
    cudnn.found = text(*found_cudnn);
  }
  if (found_cudnn) {
    const LibraryVersion v = *found_cudnn;
    cudnn.ok = v.major == build->cudnn_major && v.minor >= build->cudnn_minor;
    if (v.major != build->cudnn_major)
      cudnn.note = "a different major version: TensorFlow " + target.version + " needs cuDNN " +
                   std::to_string(build->cudnn_major) + ".x";
  }
  check.checks.push_back(cudnn);

  RequirementCheck driver{
      "NVIDIA driver",
      "support for CUDA " + cuda_version_text(need_cuda) + ", " + c.driver_requirement(need_cuda),
      "", false, ""};
  if (!s.driver.loaded) {
    driver.found = "not found";
  } else {
    driver.found = (s.driver.version.empty() ? std::string("version unknown") : s.driver.version) +
                   (s.driver.max_cuda_version > 0
                        ? ", supports CUDA " + cuda_version_text(s.driver.max_cuda_version)
                        : "");
    const std::string min = c.minimum_driver_for(need_cuda);
    if (s.driver.max_cuda_version > 0)
      driver.ok = cuda_major(s.driver.max_cuda_version) >= cuda_major(need_cuda);
    else
      driver.ok =
          !s.driver.version.empty() && !min.empty() && version_at_least(s.driver.version, min);
    if (driver.ok && s.driver.max_cuda_version > 0 && s.driver.max_cuda_version < need_cuda)
      driver.note = "older minor version: runs under minor-version compatibility";
  }
  check.checks.push_back(driver);

  auto release = dotted(target.version);
  release.resize(2);  // 2.10.1 is a 2.10 release
  const bool after_windows_native = release > dotted(facts.tensorflow_windows_native_last);
  RequirementCheck platform{"platform", "", c.windows() ? "native Windows" : s.os, true, ""};
  if (after_windows_native) {
    platform.required = "Linux or WSL2 (native Windows GPU support ends at TensorFlow " +
                        facts.tensorflow_windows_native_last + ")";
    platform.ok = !c.windows();
    if (c.windows())
      platform.note = "run TensorFlow " + target.version + " inside WSL2 to use the GPU";
  } else {
    platform.required = "Linux, or native Windows (GPU support there ends at TensorFlow " +
                        facts.tensorflow_windows_native_last + ")";
    if (c.windows())
      platform.note =
          "TensorFlow looks for DLLs named by version, e.g. cudart64_110.dll (all CUDA "
          "11.x) and cudnn64_8.dll; a DLL of another version is not found";
  }
  check.checks.push_back(platform);

  // Each DLL that TensorFlow loads by name, and where the search order finds it.
  if (windows_dlls)
    for (const auto& name : windows_dlls->dlls) {
      const std::string family = dll_family(name)->name;  // the facts loader checked it
      RequirementCheck dll{name, "loaded by TensorFlow " + target.version + " by this name", "",
                           false, ""};
      const DllInfo* found = find_dll(s, family, name);
      dll.ok = found && lower_equal(found->name, name);
      if (dll.ok) {
        dll.found = where(*found);
      } else {
        dll.found = "not found along the DLL search order" +
                    (found ? "; " + found->name + " in " + where(*found) + " is another version"
                           : std::string());
        dll.note = family == "cudnn"
                       ? "install cuDNN " + std::to_string(build->cudnn_major) + "." +
                             std::to_string(build->cudnn_minor) + " for CUDA " + need_major +
                             ".x and put the folder holding " + name + " on PATH"
                       : "install the CUDA toolkit " + cuda_version_text(need_cuda) +
                             " and put its bin folder, which holds " + name + ", on PATH";
      }
      check.checks.push_back(dll);
    }

  check.all_ok = std::all_of(check.checks.begin(), check.checks.end(),
                             [](const RequirementCheck& r) { return r.ok; });
  return check;
}

}  // namespace lb::doctor
