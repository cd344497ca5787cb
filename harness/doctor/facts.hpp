#pragma once
// Published compatibility facts the doctor checks against, loaded from bench/facts/*.json
// (each file names its source). Data, not code: a new CUDA or TensorFlow release is a data edit.
#include <filesystem>
#include <string>
#include <vector>

namespace lb::doctor {

struct DriverMinimum {
  int cuda_major = 0;
  int cuda_minor = -1;         // -1: every minor of cuda_major ("12.x")
  std::string linux_driver;    // "525.60.13"
  std::string windows_driver;  // empty: not recorded in the source
};

struct TensorCorePrecision {
  std::string name;  // "TF32"
  int min_cc_major = 0, min_cc_minor = 0;
  std::string note;
};

struct TensorflowBuild {
  std::string first, last;  // inclusive range of TensorFlow major.minor versions
  int cuda_version = 0;     // 12020 = 12.2
  int cudnn_major = 0, cudnn_minor = 0;
};

// The DLLs a native-Windows TensorFlow GPU release loads by name.
struct TensorflowWindowsDlls {
  std::string first, last;        // inclusive range of TensorFlow major.minor versions
  std::vector<std::string> dlls;  // "cudart64_110.dll", ...
};

struct Facts {
  std::vector<DriverMinimum> drivers;
  std::vector<TensorCorePrecision> tensor_cores;
  std::vector<TensorflowBuild> tensorflow;
  std::string tensorflow_windows_native_last;  // "2.10"
  std::vector<TensorflowWindowsDlls> tensorflow_windows_dlls;
  std::vector<std::string> sources;  // one line per file: "file: source"
};

// Reads cuda_drivers.json, tensor_cores.json, tensorflow_builds.json and
// tensorflow_windows_dlls.json from `facts_dir`.
// Throws InputError naming the file and the field that is missing or malformed
// ("<dir>/cuda_drivers.json: minimum_driver[0].linux: must be a string, is 525").
Facts load_facts(const std::filesystem::path& facts_dir);
// The facts shipped with layerbench (data_dir()/facts).
Facts load_facts();

// The minimum driver entry for a CUDA runtime version (an exact MAJOR.MINOR row wins over
// MAJOR.x); nullptr when the facts do not cover it.
const DriverMinimum* minimum_driver(const Facts& facts, int cuda_version);
// Tensor Core precisions a GPU of this compute capability has, in the facts' order.
std::vector<std::string> tensor_core_precisions(const Facts& facts, int cc_major, int cc_minor);
// The tested build of TensorFlow `version` ("2.15" or "2.15.1"); nullptr when not listed.
const TensorflowBuild* tensorflow_build(const Facts& facts, const std::string& version);
// The DLLs native-Windows TensorFlow `version` loads; nullptr when the facts do not list it.
const TensorflowWindowsDlls* tensorflow_windows_dlls(const Facts& facts,
                                                     const std::string& version);

}  // namespace lb::doctor
