#pragma once
// The doctor's verdict: a pure function of a probed (or fabricated) snapshot and the facts.
// `run` uses it too, to say why it falls back to the CPU.
#include <map>
#include <string>
#include <vector>

#include "harness/doctor/facts.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb::doctor {

enum class Severity { info, warning, error };
const char* name(Severity s);

struct Finding {
  Severity severity = Severity::info;
  std::string subject;  // "build", "driver", "devices", "gpu 0", "cudnn", "cublas", "env"
  std::string message;
  std::vector<std::string> fixes;
};

struct Diagnosis {
  bool gpu_usable = false;
  std::string reason;              // one line: why no GPU is usable; empty when one is
  std::string verdict;             // "GPU ready: ..." or "No usable GPU: <reason>"
  std::vector<std::string> fixes;  // how to fix, in the order the problems block
  std::vector<Finding> findings;   // everything noticed, in the order checked
  std::vector<int> usable_gpus;    // indices of GPUs this build can run on
  std::string driver_needed;  // the driver this build's CUDA runtime needs; empty in CPU builds
  std::map<int, std::vector<std::string>> tensor_cores;  // GPU index -> "FP16", "TF32", ...
};

// Cards with less memory than this get a warning: a chosen line (6 GB, decimal) below which the
// larger layers at large batches may not fit.
inline constexpr double kSmallGpuMemoryBytes = 6e9;

Diagnosis diagnose(const Snapshot& snapshot, const Facts& facts);

// Whether CUDA_VISIBLE_DEVICES hides every GPU: empty, or a first entry CUDA cannot use ("-1").
bool visible_devices_hide_all(const std::string& value);
// The first DLL of `family` along the search order, preferring the one named `wanted` (any
// case); nullptr when the search found none of that family.
const DllInfo* find_dll(const Snapshot& snapshot, const std::string& family,
                        const std::string& wanted = "");
// The driver CUDA `cuda_version` needs on the snapshot's OS, in words for a fix.
std::string driver_requirement(const Snapshot& snapshot, const Facts& facts, int cuda_version);

// --- `doctor --for tensorflow==X.Y` ---

struct FrameworkTarget {
  std::string framework;  // "tensorflow"
  std::string version;    // "2.15"
};
// Parses "tensorflow==2.15" (also "2.15.1"); throws std::invalid_argument with a message that
// says what is accepted.
FrameworkTarget parse_framework_target(const std::string& spec);

struct RequirementCheck {
  std::string item;  // "CUDA", "cuDNN", "NVIDIA driver", "platform"
  std::string required;
  std::string found;
  bool ok = false;
  std::string note;
};

struct FrameworkCheck {
  FrameworkTarget target;
  std::string tested_with;  // "CUDA 12.2, cuDNN 8.9 (Linux)"
  std::vector<RequirementCheck> checks;
  bool all_ok = false;
};

// The tested build of the target's version; throws std::invalid_argument when the facts do
// not list it, naming the known range.
const TensorflowBuild& tested_build(const Facts& facts, const FrameworkTarget& target);

// Throws like tested_build for an unknown version.
FrameworkCheck check_framework(const Snapshot& snapshot, const Facts& facts,
                               const FrameworkTarget& target);

}  // namespace lb::doctor
