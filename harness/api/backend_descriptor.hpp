#pragma once
// Everything the application needs to know about one backend, in one place: its name, the
// devices it offers, what it adds to the doctor's snapshot, its `--version` rows and how it
// makes the Backend that prepares cases, and the `run` options it accepts. Each backend folder in
// kernels/ defines one; bench/backend_registry.cpp lists them, and doctor, --version and run loop
// over that list.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/api/backend.hpp"
#include "harness/api/device_id.hpp"
#include "harness/api/gpu_processes.hpp"
#include "harness/api/precision.hpp"

// The doctor's snapshot and facts (harness/doctor/), which a descriptor's probe fills and its
// usability check reads: declared here, so that the types kernels use stay below the doctor.
namespace lb::doctor {
struct Snapshot;
struct Facts;
}  // namespace lb::doctor

namespace lb {

// One line of `layerbench --version`: a library and what is known of its version.
struct VersionRow {
  std::string library;
  std::string text;
};

// One `run` option a backend declares (the CUDA backend's --layout, --cudnn-api, --workspace-mb):
// the CLI adds it to `run`, checks it (flags and a resumed file's settings alike, exit 2 naming
// the flag), records it in the results file's settings under `settings_key`, and hands the value
// to this backend alone when it makes the Backend. An option is a string from `choices` or, when
// `choices` is empty, a number in [min, max]. Options every backend shares (--algo, --warm,
// --memory-limit) are the harness's own: bench/cmd_run.cpp and CaseOptions.
struct BackendOption {
  std::string flag;                  // "--layout"
  std::string help;                  // for --help, naming the default
  std::string settings_key;          // "layout"
  nlohmann::json default_value;      // a string or a number
  std::vector<std::string> choices;  // a string option's values; empty: a number
  double min = 0, max = 0;           // a number's closed range
  std::string unit;                  // a number's meaning for the range error: "a number of MiB"
  // What a results file written before the option existed was measured with (a resumed file
  // without the key counts as this); null: the key is required.
  nlohmann::json value_before_option_existed = nullptr;
};

// A string option whose default is its first choice.
inline BackendOption choice_option(std::string flag, std::string help, std::string settings_key,
                                   std::vector<std::string> choices) {
  BackendOption option;
  option.flag = std::move(flag), option.help = std::move(help);
  option.settings_key = std::move(settings_key);
  option.default_value = choices.at(0);
  option.choices = std::move(choices);
  return option;
}

// A number option in [min, max].
inline BackendOption number_option(std::string flag, std::string help, std::string settings_key,
                                   double default_value, double min, double max, std::string unit) {
  BackendOption option;
  option.flag = std::move(flag), option.help = std::move(help);
  option.settings_key = std::move(settings_key);
  option.default_value = default_value;
  option.min = min, option.max = max, option.unit = std::move(unit);
  return option;
}

// A backend's option values by settings key, checked by the CLI against its declarations.
using BackendOptionValues = std::map<std::string, nlohmann::json>;

// The doctor's word on the devices one backend offers: which it can run on and, when none, why
// and what to do. `run` measures a backend on the devices it lists here and nowhere else.
struct DeviceUsability {
  std::vector<int> usable;         // device indices, as in "gpu:N" (0 for the CPU)
  std::string verdict;             // one line: "GPU ready: ..." or "No usable GPU: <reason>"
  std::vector<std::string> fixes;  // how to make a device usable, in the order problems block
};

// What a device's record in the results file says of it beyond its facts: its name and, where its
// backend knows them, the peaks and memory bandwidth that fractions of peak are taken against.
struct DeviceDescription {
  std::string name;
  std::map<Precision, double> peak_tflops;  // only the precisions it has figures for
  std::optional<double> memory_gbps;
  std::string source;  // where the figures come from: "datasheet: H200 datasheet"
};

struct BackendDescriptor {
  std::string name;         // "onednn", "cuda"
  std::string device_kind;  // "cpu", "gpu" or a kind of its own (harness/api/device_id.hpp)
  // Whether it is its device kind's primary library: its points are keyed by the device id
  // alone, those of any other backend on the device by "device@name" (results-schema.md,
  // "Point identity"), and a run without --backend measures with the primary ones.
  bool primary = false;
  // What its points record as their `backend`, the library that measured them; empty: its name.
  std::vector<std::string> point_backends;
  // How reports name each of those libraries ("onednn" -> "oneDNN"); a name left out is shown
  // as it is.
  std::map<std::string, std::string> library_names;
  // Adds what only this backend's libraries can tell (versions, devices), as
  // doctor::BackendFinding rows in snapshot.backends. Never throws and never needs a driver: a
  // library that cannot be loaded is a finding with its problem and fix.
  std::function<void(doctor::Snapshot&)> probe;
  // How the doctor decides which of its devices are usable: a pure function of the probed (or a
  // fabricated) snapshot and the facts, so it is tested without the hardware.
  std::function<DeviceUsability(const doctor::Snapshot&, const doctor::Facts&)> usability;
  // Library versions, compiled and loaded; touches no device.
  std::function<std::vector<VersionRow>()> version_rows;
  // Its libraries' loaded versions as a results file's context.libraries records them (key,
  // version), read from the probed snapshot. Written once per file: the devices' facts do not
  // repeat them.
  std::function<std::vector<std::pair<std::string, std::string>>(const doctor::Snapshot&)>
      libraries;
  // The compute processes on one of its GPUs now, for the results' machine_state: `facts` is the
  // device record's facts as this backend wrote them (the CUDA backend's pci_bus_id); empty
  // optional and `error` set when its library cannot tell. Null: its devices have no such list.
  std::function<std::optional<std::vector<GpuProcess>>(const nlohmann::json& facts,
                                                       std::string& error)>
      gpu_processes;
  // Its device's name and peaks from the facts its Backend recorded (Backend::context, as the
  // device record's facts). Null: a CPU backend, whose record the harness's own probes fill.
  std::function<DeviceDescription(const nlohmann::json& facts)> describe;
  // The `run` options only this backend understands; empty for most.
  std::vector<BackendOption> options;
  // The backend for one device: `device_index` is the GPU's index (0 for the CPU), `threads`
  // the CPU threads (0 = every logical processor), `options` a value for each of `options`
  // (checked). Throws std::runtime_error when the device cannot be used.
  std::function<std::unique_ptr<Backend>(int device_index, int threads,
                                         const BackendOptionValues& options)>
      make;
};

}  // namespace lb
