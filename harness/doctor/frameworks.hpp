#pragma once
// The Python frameworks (TensorFlow, PyTorch, JAX) installed in the user's interpreter, as the
// probe script (bench/probe/framework_probe.py) reports them, and the doctor's verdict on each:
// whether it can use the GPU, joined with the driver check. The verdict is a pure function of
// the probe's report, the snapshot and the facts, so tests feed it fabricated ones.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb::doctor {

// One CUDA library a framework loads, and where it resolves from the framework's point of view.
struct FrameworkLibrary {
  std::string family;   // "cudart", "cublas", "cublasLt", "cudnn"
  std::string soname;   // "libcudnn.so.9"
  std::string path;     // empty: not found
  std::string origin;   // "pip cudnn" (its nvidia/cudnn/lib folder), "LD_LIBRARY_PATH", "system"
  std::string version;  // from the file name, "9.1.0"; empty when the name carries none
  std::vector<std::string> other_versions;  // other versions of the library found, when missing
};

struct FrameworkProbe {
  std::string name;     // import name: "tensorflow", "torch", "jax"
  std::string display;  // "TensorFlow"
  // "ok", "not_installed", "timeout" (the import hung), "crashed", "import_error"
  std::string status;
  std::string error;
  std::string package;  // distribution: "tensorflow-cpu", "torch", "jax[cuda12]"
  std::string version;  // "2.21.0", "2.9.1+cpu"
  bool cuda_build = false;
  std::string cuda_version;   // the CUDA it was built for, "12.8" (JAX: the plugin's major, "12")
  std::string cudnn_version;  // "9.1.0", "8"; empty when it does not say
  int gpus_seen = 0;
  std::vector<std::string> warnings;  // its own output lines about CUDA, drivers, GPUs
  std::vector<FrameworkLibrary> libraries;
};

struct PythonProbe {
  std::string python;  // the interpreter's path
  std::string python_version;
  std::string platform;  // sys.platform
  std::vector<FrameworkProbe> frameworks;
  std::vector<std::pair<std::string, std::string>> nvidia_packages;  // pip name, version
  std::map<std::string, std::optional<std::string>> env;             // as the interpreter sees it
};

// Reads the probe script's JSON; throws std::runtime_error naming the field that is wrong.
PythonProbe parse_python_probe(const nlohmann::json& j);

struct FrameworkVerdict {
  std::string name, display, version, package;
  bool installed = false;
  bool gpu_usable = false;
  std::string verdict;              // one line in the doctor's words
  std::vector<std::string> fixes;   // exact commands, in order
  std::vector<std::string> advice;  // memory settings worth knowing, not blocking
};

// One verdict per framework the probe found installed (or failing to import).
std::vector<FrameworkVerdict> judge_frameworks(const PythonProbe& probe, const Snapshot& snapshot,
                                               const Facts& facts);

nlohmann::json frameworks_json(const PythonProbe& probe,
                               const std::vector<FrameworkVerdict>& verdicts);
void print_frameworks(std::ostream& out, const PythonProbe& probe,
                      const std::vector<FrameworkVerdict>& verdicts);

}  // namespace lb::doctor
