#include "harness/doctor/frameworks.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "harness/doctor/versions.hpp"
#include "harness/doctor/windows_dlls.hpp"

namespace lb::doctor {
namespace {

using nlohmann::json;

template <typename T>
T field(const json& j, const char* key, const std::string& where) {
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error("framework probe: " + where + key +
                             " is missing or of the wrong type");
  }
}

// A nested array or object, by reference (a copy per loop would be a temporary per field).
const json& child(const json& j, const char* key, const std::string& where, bool array) {
  const auto it = j.find(key);
  if (it == j.end() || (array ? !it->is_array() : !it->is_object()))
    throw std::runtime_error("framework probe: " + where + key + " is missing or not " +
                             (array ? "a list" : "an object"));
  return *it;
}

FrameworkLibrary parse_library(const json& j, const std::string& where) {
  return {field<std::string>(j, "family", where),
          field<std::string>(j, "soname", where),
          field<std::string>(j, "path", where),
          field<std::string>(j, "origin", where),
          field<std::string>(j, "version", where),
          field<std::vector<std::string>>(j, "other_versions", where)};
}

FrameworkProbe parse_framework(const json& j, const std::string& where) {
  FrameworkProbe f;
  f.name = field<std::string>(j, "name", where);
  const std::string here = where + f.name + ".";
  f.display = field<std::string>(j, "display", here);
  f.status = field<std::string>(j, "status", here);
  f.error = field<std::string>(j, "error", here);
  f.package = field<std::string>(j, "package", here);
  f.version = field<std::string>(j, "version", here);
  f.cuda_build = field<bool>(j, "cuda_build", here);
  f.cuda_version = field<std::string>(j, "cuda_version", here);
  f.cudnn_version = field<std::string>(j, "cudnn_version", here);
  f.gpus_seen = field<int>(j, "gpus_seen", here);
  f.warnings = field<std::vector<std::string>>(j, "warnings", here);
  for (const auto& lib : child(j, "libraries", here, true))
    f.libraries.push_back(parse_library(lib, here + "libraries[]."));
  return f;
}

// The CUDA a framework was built for, encoded as the driver reports it (12.8 -> 12080); a bare
// major ("12", JAX's plugin) counts as its .0. 0 when it says nothing readable.
int framework_cuda(const FrameworkProbe& f) {
  const std::string text =
      is_dotted_version(f.cuda_version, 1, 1) ? f.cuda_version + ".0" : f.cuda_version;
  if (!is_dotted_version(text, 2, 3)) return 0;
  const auto parts = dotted(text);
  return parse_cuda_version(std::to_string(parts[0]) + "." + std::to_string(parts[1]));
}

std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

// "2.9.1+cpu" -> "2.9.1": the version pip resolves on PyPI.
std::string public_version(const std::string& version) {
  return version.substr(0, version.find('+'));
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// What blocks a framework from the GPU, and how to fix it.
struct Problem {
  std::string reason;
  std::vector<std::string> fixes;
};

struct Judge {
  const PythonProbe& probe;
  const Snapshot& s;
  const Facts& facts;

  std::string pip(const std::string& args) const {
    return "`" + probe.python + " -m pip " + args + "`";
  }
  bool windows() const { return probe.platform == "win32"; }

  std::optional<std::string> env(const std::string& key) const {
    const auto it = probe.env.find(key);
    return it == probe.env.end() ? std::nullopt : it->second;
  }

  // How to get the libraries a CUDA build of `f` loads from pip, with versions.
  std::string reinstall_with_cuda(const FrameworkProbe& f) const {
    if (f.name == "tensorflow")
      return pip("install 'tensorflow[and-cuda]==" + public_version(f.version) + "'");
    if (f.name == "torch") return pip("install --force-reinstall 'torch==" + f.version + "'");
    return pip("install -U 'jax[cuda" + major_of(f.cuda_version) + "]==" + f.version + "'");
  }

  void cpu_only(const FrameworkProbe& f, FrameworkVerdict& v) const {
    const std::string base = public_version(f.version);
    if (f.package == "tensorflow-cpu") {
      v.verdict = "TensorFlow " + f.version +
                  " is the CPU-only package `tensorflow-cpu`: it never uses a GPU";
      v.fixes = {pip("uninstall -y tensorflow-cpu") + ", then " +
                 pip("install 'tensorflow[and-cuda]==" + base + "'")};
    } else if (f.name == "torch") {
      v.verdict = "PyTorch " + f.version + " is a CPU-only build: it never uses a GPU";
      v.fixes = {pip("install --force-reinstall 'torch==" + base + "'") +
                 " (PyPI's Linux x86_64 wheel is the CUDA build; for another CUDA version see "
                 "https://pytorch.org/get-started/locally/)"};
    } else if (f.name == "jax") {
      const int driver_major =
          s.nvidia.driver.max_cuda_version > 0 ? cuda_major(s.nvidia.driver.max_cuda_version) : 12;
      v.verdict = "JAX " + f.version + " has no CUDA plugin installed: it runs on the CPU";
      v.fixes = {pip("install -U 'jax[cuda" + std::to_string(driver_major >= 13 ? 13 : 12) +
                     "]==" + f.version + "'")};
    } else {
      v.verdict = f.display + " " + f.version + " (package `" + f.package +
                  "`) is a build without CUDA: it never uses a GPU";
      v.fixes = {pip("install 'tensorflow[and-cuda]==" + base + "'") + " (Linux or WSL2)"};
    }
    if (f.name == "tensorflow" && windows())
      v.fixes = {"Native Windows TensorFlow uses the GPU only up to " +
                 facts.tensorflow_windows_native_last + "; run TensorFlow " + f.version +
                 " inside WSL2 with " + pip("install 'tensorflow[and-cuda]==" + base + "'")};
  }

  // Windows: TensorFlow up to the last native GPU release loads DLLs named by version along
  // the DLL search order the doctor already searched.
  void windows_dlls_missing(const FrameworkProbe& f, std::vector<Problem>& out) const {
    const TensorflowWindowsDlls* dlls = f.name == "tensorflow" && s.nvidia.dll_search
                                            ? tensorflow_windows_dlls(facts, f.version)
                                            : nullptr;
    if (!dlls) return;
    std::vector<std::string> missing;
    for (const auto& dll : dlls->dlls) {
      const DllFamily* family = dll_family(dll);
      const DllInfo* found = family ? find_dll(s, family->name, dll) : nullptr;
      if (!found || found->name.size() != dll.size() ||
          !std::equal(dll.begin(), dll.end(), found->name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          }))
        missing.push_back(dll);
    }
    if (missing.empty()) return;
    Problem p{"it cannot load " + joined(missing, ", ") + ": not found along the DLL search order",
              {}};
    if (const TensorflowBuild* build = tensorflow_build(facts, f.version))
      p.fixes = {"Install the CUDA toolkit " + cuda_version_text(build->cuda_version) +
                 " and cuDNN " + std::to_string(build->cudnn_major) + "." +
                 std::to_string(build->cudnn_minor) + " for CUDA " +
                 std::to_string(cuda_major(build->cuda_version)) +
                 ".x, and put the folders holding " + joined(missing, " and ") + " on PATH"};
    out.push_back(p);
  }

  // The cuDNN release a framework was built for as MAJOR.MINOR: TensorFlow reports only the
  // major ("8"), so its minor comes from the facts' tested builds where they list the release.
  std::string cudnn_release(const FrameworkProbe& f) const {
    if (is_dotted_version(f.cudnn_version, 2, 3)) {
      const auto parts = dotted(f.cudnn_version);
      return std::to_string(parts[0]) + "." + std::to_string(parts[1]);
    }
    const TensorflowBuild* build =
        f.name == "tensorflow" ? tensorflow_build(facts, f.version) : nullptr;
    if (build && std::to_string(build->cudnn_major) == f.cudnn_version)
      return std::to_string(build->cudnn_major) + "." + std::to_string(build->cudnn_minor);
    return f.cudnn_version;
  }

  void libraries_missing(const FrameworkProbe& f, std::vector<Problem>& out) const {
    std::vector<std::string> names;
    const FrameworkLibrary* other_cudnn = nullptr;
    for (const auto& lib : f.libraries) {
      if (!lib.path.empty()) continue;
      names.push_back(lib.soname);
      if (lib.family == "cudnn" && !lib.other_versions.empty()) other_cudnn = &lib;
    }
    if (names.empty()) return;
    if (other_cudnn && names.size() == 1) {
      out.push_back({"it cannot load " + other_cudnn->soname + ": it was built for cuDNN " +
                         cudnn_release(f) + " and this environment has cuDNN " +
                         joined(other_cudnn->other_versions, ", "),
                     {pip("install 'nvidia-cudnn-cu" + major_of(f.cuda_version) +
                          "==" + cudnn_release(f) + ".*'")}});
      return;
    }
    out.push_back({"it cannot load " + joined(names, ", ") +
                       " (not in its pip nvidia/*/lib folders, LD_LIBRARY_PATH or the system's "
                       "libraries)",
                   {reinstall_with_cuda(f)}});
  }

  void memory_advice(const FrameworkProbe& f, FrameworkVerdict& v) const {
    if (!f.cuda_build) return;
    if (f.name == "tensorflow") {
      const auto growth = env("TF_FORCE_GPU_ALLOW_GROWTH");
      v.advice.push_back(
          growth ? "TF_FORCE_GPU_ALLOW_GROWTH=" + *growth +
                       ": TensorFlow allocates GPU memory as needed when it is \"true\""
                 : "TF_FORCE_GPU_ALLOW_GROWTH is not set: TensorFlow reserves nearly all memory "
                   "of every visible GPU when it starts; `export TF_FORCE_GPU_ALLOW_GROWTH=true` "
                   "makes it allocate as needed");
    } else if (f.name == "torch") {
      const auto conf = env("PYTORCH_CUDA_ALLOC_CONF");
      v.advice.push_back(
          conf ? "PYTORCH_CUDA_ALLOC_CONF=" + *conf + " configures PyTorch's caching allocator"
               : "PYTORCH_CUDA_ALLOC_CONF is not set: PyTorch's caching allocator keeps freed "
                 "blocks reserved for reuse; `export "
                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` reduces fragmentation when "
                 "shapes vary");
    } else if (f.name == "jax") {
      const auto prealloc = env("XLA_PYTHON_CLIENT_PREALLOCATE");
      v.advice.push_back(prealloc ? "XLA_PYTHON_CLIENT_PREALLOCATE=" + *prealloc
                                  : "XLA_PYTHON_CLIENT_PREALLOCATE is not set: JAX preallocates "
                                    "75% of GPU memory when it starts; `export "
                                    "XLA_PYTHON_CLIENT_PREALLOCATE=false` allocates as needed");
    }
  }

  FrameworkVerdict judge(const FrameworkProbe& f) const {
    FrameworkVerdict v{f.name, f.display, f.version, f.package, true, false, "", {}, {}};
    if (f.status == "timeout") {
      v.verdict = f.display + " " + f.version + ": " + f.error + " (the import hangs)";
      v.fixes = {"Run `" + probe.python + " -c 'import " + f.name +
                 "'` to see where it stops; a network file system or a lock in its cache "
                 "folder are common causes"};
      return v;
    }
    if (f.status == "crashed" || f.status == "import_error") {
      v.verdict = f.display + " " + f.version + " cannot be imported: " + f.error;
      v.fixes = {pip("install --force-reinstall '" + f.package + "==" + f.version + "'")};
      return v;
    }
    if (!f.cuda_build) {
      cpu_only(f, v);
      return v;
    }
    memory_advice(f, v);
    // Every problem that blocks the GPU, in the order to fix them: the framework's own
    // libraries, the driver, the environment.
    std::vector<Problem> problems;
    if (windows())
      windows_dlls_missing(f, problems);
    else
      libraries_missing(f, problems);
    const int cuda = framework_cuda(f);
    if (!s.nvidia.driver.loaded) {
      problems.push_back(
          {"NVIDIA driver not found (" + s.nvidia.driver.library + " cannot be loaded)",
           {"Install the NVIDIA driver for your GPU: CUDA " + f.cuda_version + " needs " +
            driver_requirement(s, facts, cuda) + "."}});
    } else if (s.nvidia.driver.max_cuda_version > 0 && cuda > 0) {
      if (cuda_major(s.nvidia.driver.max_cuda_version) < cuda_major(cuda))
        problems.push_back(
            {"the NVIDIA driver supports CUDA " +
                 cuda_version_text(s.nvidia.driver.max_cuda_version) + " but this " + f.display +
                 " was built for CUDA " + f.cuda_version,
             {"Update the NVIDIA driver: CUDA " + f.cuda_version + " needs " +
                  driver_requirement(s, facts, cuda) + ".",
              "Or install a " + f.display + " build for CUDA " +
                  std::to_string(cuda_major(s.nvidia.driver.max_cuda_version)) + ".x."}});
      else if (s.nvidia.driver.max_cuda_version < cuda)
        v.advice.push_back("the NVIDIA driver supports CUDA " +
                           cuda_version_text(s.nvidia.driver.max_cuda_version) +
                           ", older than the CUDA " + f.cuda_version +
                           " this build was made for: it runs under minor-version "
                           "compatibility, and kernels compiled at run time (PTX) fail");
    }
    if (const auto visible = env("CUDA_VISIBLE_DEVICES");
        visible && visible_devices_hide_all(*visible))
      problems.push_back(
          {(visible->empty() ? std::string("CUDA_VISIBLE_DEVICES is empty")
                             : "CUDA_VISIBLE_DEVICES=\"" + *visible + "\"") +
               ": every GPU is hidden",
           {windows() ? "`set CUDA_VISIBLE_DEVICES=` or list the GPUs to use, e.g. 0"
                      : "`unset CUDA_VISIBLE_DEVICES`, or list the GPUs to use, e.g. 0"}});
    const std::string label = f.display + " " + f.version + " (CUDA " + f.cuda_version + " build)";
    if (problems.empty() && f.gpus_seen > 0) {
      v.gpu_usable = true;
      v.verdict =
          label + " sees " + std::to_string(f.gpus_seen) + " GPU" + (f.gpus_seen == 1 ? "" : "s");
      return v;
    }
    if (problems.empty())
      problems.push_back(
          {"it sees no GPU" +
               (f.warnings.empty() ? std::string() : "; it says: " + f.warnings.front()),
           {"Check that `nvidia-smi` lists a GPU, then run `" + probe.python + " -c 'import " +
            f.name + "'` and read its own messages"}});
    std::vector<std::string> reasons;
    for (const auto& p : problems) {
      reasons.push_back(p.reason);
      v.fixes.insert(v.fixes.end(), p.fixes.begin(), p.fixes.end());
    }
    v.verdict = label + " will run on the CPU: " + joined(reasons, "; ");
    return v;
  }
};

std::string or_text(const std::string& s, const char* none) { return s.empty() ? none : s; }

}  // namespace

PythonProbe parse_python_probe(const json& j) {
  if (!j.is_object()) throw std::runtime_error("framework probe: the output is not a JSON object");
  PythonProbe p;
  p.python = field<std::string>(j, "python", "");
  p.python_version = field<std::string>(j, "python_version", "");
  p.platform = field<std::string>(j, "platform", "");
  for (const auto& f : child(j, "frameworks", "", true))
    p.frameworks.push_back(parse_framework(f, "frameworks[]."));
  for (const auto& [name, version] : child(j, "nvidia_packages", "", false).items())
    p.nvidia_packages.emplace_back(name, version.is_string() ? version.get<std::string>() : "");
  for (const auto& [name, value] : child(j, "env", "", false).items())
    p.env[name] =
        value.is_string() ? std::optional<std::string>(value.get<std::string>()) : std::nullopt;
  return p;
}

std::vector<FrameworkVerdict> judge_frameworks(const PythonProbe& probe, const Snapshot& snapshot,
                                               const Facts& facts) {
  const Judge judge{probe, snapshot, facts};
  std::vector<FrameworkVerdict> verdicts;
  for (const auto& f : probe.frameworks)
    if (f.status != "not_installed") verdicts.push_back(judge.judge(f));
  return verdicts;
}

json frameworks_json(const PythonProbe& probe, const std::vector<FrameworkVerdict>& verdicts) {
  json list = json::array();
  for (const auto& f : probe.frameworks) {
    if (f.status == "not_installed") continue;
    const auto v = std::find_if(verdicts.begin(), verdicts.end(),
                                [&](const FrameworkVerdict& x) { return x.name == f.name; });
    json libraries = json::array();
    for (const auto& lib : f.libraries)
      libraries.push_back({{"family", lib.family},
                           {"soname", lib.soname},
                           {"path", lib.path.empty() ? json(nullptr) : json(lib.path)},
                           {"origin", lib.origin.empty() ? json(nullptr) : json(lib.origin)},
                           {"version", lib.version.empty() ? json(nullptr) : json(lib.version)},
                           {"other_versions", lib.other_versions}});
    list.push_back(
        {{"name", f.name},
         {"display", f.display},
         {"python", probe.python},
         {"status", f.status},
         {"error", f.error.empty() ? json(nullptr) : json(f.error)},
         {"package", f.package},
         {"version", f.version},
         {"cuda_build", f.cuda_build},
         {"cuda_version", f.cuda_version.empty() ? json(nullptr) : json(f.cuda_version)},
         {"cudnn_version", f.cudnn_version.empty() ? json(nullptr) : json(f.cudnn_version)},
         {"gpus_seen", f.gpus_seen},
         {"warnings", f.warnings},
         {"libraries", libraries},
         {"gpu_usable", v != verdicts.end() && v->gpu_usable},
         {"verdict", v != verdicts.end() ? json(v->verdict) : json(nullptr)},
         {"fixes", v != verdicts.end() ? v->fixes : std::vector<std::string>{}},
         {"advice", v != verdicts.end() ? v->advice : std::vector<std::string>{}}});
  }
  return list;
}

void print_frameworks(std::ostream& out, const PythonProbe& probe,
                      const std::vector<FrameworkVerdict>& verdicts) {
  out << "\nPython frameworks (" << probe.python << ", Python " << probe.python_version << ")\n";
  if (verdicts.empty()) out << "  none of TensorFlow, PyTorch, JAX is installed\n";
  const std::string indent(4, ' ');
  for (const auto& f : probe.frameworks) {
    if (f.status == "not_installed") continue;
    out << "  " << f.display << " " << f.version << " (package " << f.package << ")";
    if (f.status == "ok")
      out << ": "
          << (f.cuda_build ? "built for CUDA " + or_text(f.cuda_version, "?") + ", cuDNN " +
                                 or_text(f.cudnn_version, "?")
                           : std::string("built without CUDA"))
          << ", sees " << f.gpus_seen << " GPU" << (f.gpus_seen == 1 ? "" : "s");
    out << "\n";
    for (const auto& lib : f.libraries)
      out << indent << lib.soname << ": "
          << (lib.path.empty()
                  ? "NOT FOUND" +
                        (lib.other_versions.empty()
                             ? std::string()
                             : " (found other versions: " + joined(lib.other_versions, ", ") + ")")
                  : or_text(lib.version, "version unknown") + ", " + lib.path + " (" + lib.origin +
                        ")")
          << "\n";
    for (const auto& w : f.warnings) out << indent << "it says: " << w << "\n";
    const auto v = std::find_if(verdicts.begin(), verdicts.end(),
                                [&](const FrameworkVerdict& x) { return x.name == f.name; });
    if (v == verdicts.end()) continue;
    out << indent << (v->gpu_usable ? "GPU ready: " : "CPU only: ") << v->verdict << "\n";
    for (const auto& fix : v->fixes) out << indent << "fix: " << fix << "\n";
    for (const auto& a : v->advice) out << indent << "advice: " << a << "\n";
  }
}

}  // namespace lb::doctor
