#pragma once
// `layerbench run`'s settings: the values the flags give (recorded in the results file's
// "settings" as given), the one table that writes, reads and compares them on --resume, and
// their parse into the typed values the run uses: once, for the flags and for a resumed file's
// settings alike, an error naming the flag or the file's field.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/device_choice.hpp"
#include "harness/api/backend_descriptor.hpp"
#include "harness/measure/point_measurement.hpp"
#include "harness/measure/stopping_rule.hpp"
#include "harness/plan/plan.hpp"

namespace lb::cli {

// Everything that changes what a point measures: the settings a resumed run must share. Lists
// stay as typed (e.g. "1,8") since the file records them so.
struct RunOptions {
  std::string suite = default_suite().name;
  std::vector<std::string> models;
  // --model-file, absolute; recorded under the settings key "workloads", the flag's old name.
  std::vector<std::string> model_files;
  std::string batches, precisions, pass, device = "auto";
  std::string backends;  // --backend: comma-separated names; empty = every backend of each device
  int threads = 0;
  double max_time_per_point = StoppingRule{}.max_time_s;
  double min_time_per_point = StoppingRule{}.min_time_s;
  double noise_target = StoppingRule{}.noise_target;
  int rounds = 0;  // --rounds; 0: the suite's (harness/plan/suites.hpp), a new run records it
  bool warm = false;
  bool discard_throttled = false;  // --discard-throttled: re-take samples a GPU cap throttled
  int profile_runs = 0;            // --profile N: N samples a point, no stopping rule; 0: off
  std::string algo = "autotune";
  std::string cpu_roofs = "measure";  // or "skip": no FMA peak or bandwidth run
  double memory_limit_gb = 0;
  BackendOptionValues backend_options;  // the backends' own flags, by settings key
  std::uint64_t seed = 42;
};

RunOptions default_run_options();

// The settings object of a results file.
nlohmann::json settings_json(const RunOptions& o);

// With --resume, the file's settings are the run's: reads them (every key present and well
// typed, else InputError naming settings.KEY) and checks that each setting `flag_given` says was
// given again on the command line agrees with the file. Returns the file's settings.
RunOptions adopt_settings(nlohmann::json file_settings, const RunOptions& asked,
                          const std::function<bool(const std::string& flag)>& flag_given);

// Where settings came from, for naming a bad one: "--batch" or "settings.batches (--batch)".
enum class SettingsSource { flags, resumed_file };

// The typed values the run uses. Throws InputError (or std::invalid_argument) naming the flag,
// or with SettingsSource::resumed_file the settings field, of the first bad value: lists, ranges
// (an hour per point, 2^24 GiB, the machine's logical processors), choices and backend options.
struct RunSetup {
  RunRequest request;
  DeviceChoice devices;
  std::vector<const BackendDescriptor*> backends;
  MeasureConfig measuring;
};
RunSetup parse_settings(const RunOptions& o, SettingsSource source);

// A resumed file's settings.models must name models there are (for the flags, expand_plan says
// which --model is unknown). InputError naming the field.
void check_resumed_models(const RunOptions& o, const std::vector<Model>& models);

// A resumed run must measure on the same machine: same host, devices and versions of the
// libraries the file recorded. InputError naming `file` and the context field otherwise.
void check_same_machine(const nlohmann::json& recorded_context,
                        const nlohmann::json& current_context, const std::string& file);

}  // namespace lb::cli
