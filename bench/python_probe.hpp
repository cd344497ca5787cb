#pragma once
// Runs the framework probe script (share/layerbench/probe/framework_probe.py) in the user's
// Python interpreter: the doctor and `run` both ask it which frameworks could use the GPU.
#include <optional>
#include <string>

#include "harness/doctor/frameworks.hpp"

namespace lb::cli {

// "none" and "" mean: skip the frameworks.
inline constexpr const char* kNoPython = "none";

// The interpreter `--python` names: a path, or a name looked up on PATH. Without the flag
// (empty), the first python3 or python on PATH, or "" when there is none.
// Throws std::invalid_argument when the named interpreter does not exist.
std::string resolve_python(const std::string& flag_value);

struct PythonProbeOutcome {
  std::optional<doctor::PythonProbe> probe;
  std::string error;  // why there is no probe: the interpreter is not Python, it crashed, ...
};

// Runs the probe under `python`; each framework's import gets `import_timeout_s` seconds.
// Never throws: a failure is in `error`.
PythonProbeOutcome run_python_probe(const std::string& python, double import_timeout_s);

}  // namespace lb::cli
