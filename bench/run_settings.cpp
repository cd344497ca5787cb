#include "bench/run_settings.hpp"

#include <algorithm>
#include <type_traits>

#include "bench/backend_options.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"
#include "harness/os/platform.hpp"
#include "harness/plan/suites.hpp"
#include "harness/results/resume_check.hpp"
#include "harness/util/input_error.hpp"
#include "harness/util/json_fields.hpp"

namespace lb::cli {
namespace {

// One run setting, spelled once: its key in the results file's settings, the flag that sets it
// (none: not settable, so never compared on --resume) and how it is written and read. Reading
// checks the value's type, and a number's range before converting it (a seed of -1 or 1e30 is
// refused, not wrapped or undefined); the ranges of the run are check_ranges' below.
struct Setting {
  std::string key;
  const char* flag;
  std::function<nlohmann::json(const RunOptions&)> write;
  std::function<void(const JsonField&, RunOptions&)> read;  // throws FieldError
};

template <class T>
T read_value(const JsonField& field) {
  if constexpr (std::is_same_v<T, std::string>) {
    return field.string();
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    std::vector<std::string> items;
    for (std::size_t i = 0, n = field.array("an array of strings"); i < n; ++i)
      items.push_back(field[i].string());
    return items;
  } else if constexpr (std::is_same_v<T, double>) {
    return field.number();
  } else if constexpr (std::is_same_v<T, bool>) {
    return field.boolean();
  } else {
    return field.integer<T>();
  }
}

template <class T>
Setting member_setting(const char* key, const char* flag, T RunOptions::*member) {
  return {key, flag, [member](const RunOptions& o) { return nlohmann::json(o.*member); },
          [member](const JsonField& value, RunOptions& o) { o.*member = read_value<T>(value); }};
}

// A backend's option (bench/backend_options.hpp), read from a file as the string or number it is.
Setting backend_setting(const BackendOption& option) {
  const std::string key = option.settings_key;
  const bool number = option.choices.empty();
  return {key, option.flag.c_str(),
          [key](const RunOptions& o) { return o.backend_options.at(key); },
          [key, number](const JsonField& value, RunOptions& o) {
            o.backend_options[key] =
                number ? nlohmann::json(value.number()) : nlohmann::json(value.string());
          }};
}

const std::vector<Setting>& run_settings() {
  static const std::vector<Setting> settings = [] {
    std::vector<Setting> all = {
        member_setting("suite", "--suite", &RunOptions::suite),
        member_setting("models", "--model", &RunOptions::models),
        member_setting("workloads", "--model-file", &RunOptions::model_files),
        member_setting("batches", "--batch", &RunOptions::batches),
        member_setting("precisions", "--precision", &RunOptions::precisions),
        member_setting("pass", "--pass", &RunOptions::pass),
        member_setting("device", "--device", &RunOptions::device),
        member_setting("backends", "--backend", &RunOptions::backends),
        member_setting("threads", "--threads", &RunOptions::threads),
        member_setting("max_time_per_point_s", "--max-time-per-point",
                       &RunOptions::max_time_per_point),
        member_setting("min_time_per_point_s", nullptr, &RunOptions::min_time_per_point),
        member_setting("noise_target", "--noise-target", &RunOptions::noise_target),
        member_setting("rounds", "--rounds", &RunOptions::rounds),
        {"cache", "--warm",
         [](const RunOptions& o) { return nlohmann::json(o.warm ? "warm" : "cold"); },
         [](const JsonField& value, RunOptions& o) {
           const std::string cache = value.string();
           if (cache != "cold" && cache != "warm") value.expected("\"cold\" or \"warm\"");
           o.warm = cache == "warm";
         }},
        member_setting("discard_throttled", "--discard-throttled", &RunOptions::discard_throttled),
        member_setting("profile_runs", "--profile", &RunOptions::profile_runs),
        member_setting("algo", "--algo", &RunOptions::algo),
        member_setting("cpu_roofs", "--cpu-roofs", &RunOptions::cpu_roofs),
        member_setting("memory_limit_gb", "--memory-limit", &RunOptions::memory_limit_gb),
        member_setting("seed", "--seed", &RunOptions::seed)};
    for (const BackendOption* option : backend_options()) all.push_back(backend_setting(*option));
    return all;
  }();
  return settings;
}

// "--batch" for a flag; "settings.batches (--batch)" for a resumed file's field.
std::string label_of(const std::string& key, SettingsSource source) {
  const auto& all = run_settings();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Setting& s) { return s.key == key; });
  const std::string flag = it != all.end() && it->flag ? it->flag : "";
  if (source == SettingsSource::flags) return flag;
  return "settings." + key + (flag.empty() ? "" : " (" + flag + ")");
}

// The settings' values and ranges. The upper bounds are choices that keep the seconds and GiB
// conversions far from overflow: an hour per point, 2^24 GiB of memory; --threads stops at the
// machine's logical processors, since more OpenMP threads than processors only time the
// scheduler (10000 did not finish). The backends' options are checked against their own
// declarations.
void check_ranges(const RunOptions& o, SettingsSource source) {
  const auto label = [source](const char* key) { return label_of(key, source); };
  if (!find_suite(o.suite))
    throw InputError(label("suite") + " \"" + o.suite + "\": not one of " + suite_names_text());
  check_in_range(label("max_time_per_point_s"), o.max_time_per_point, 0, true, 3600,
                 "a number of seconds");
  check_in_range(label("min_time_per_point_s"), o.min_time_per_point, 0, false, 3600,
                 "a number of seconds");
  check_in_range(label("noise_target"), o.noise_target, 0, true, 1, "a relative noise");
  // 100 rounds of the quick suite would take hours: past any use of a spread between rounds.
  // The flag's 0 was refused when read (read_flags); a resumed file's stands for the suite's.
  if (o.rounds < 0 || o.rounds > 100)
    throw InputError(label("rounds") + " " + std::to_string(o.rounds) +
                     ": not a number of rounds from 1 to 100" +
                     (source == SettingsSource::flags ? "" : " (0: the suite's)"));
  if (o.profile_runs < 0 || o.profile_runs > 100000)
    throw InputError(label("profile_runs") + " " + std::to_string(o.profile_runs) +
                     ": not a number of runs from 1 to 100000 (0: off)");
  check_in_range(label("memory_limit_gb"), o.memory_limit_gb, 0, false, 1 << 24,
                 "a number of GiB (0: the device's own)");
  if (o.algo != "autotune" && o.algo != "heuristic")
    throw InputError(label("algo") + " \"" + o.algo + "\": not one of autotune, heuristic");
  if (o.cpu_roofs != "measure" && o.cpu_roofs != "skip")
    throw InputError(label("cpu_roofs") + " \"" + o.cpu_roofs + "\": not one of measure, skip");
  for (const BackendOption* option : backend_options())
    check_backend_option(*option, o.backend_options.at(option->settings_key),
                         label_of(option->settings_key, source));
  const int processors = std::max(1, platform::cpu_features().threads);
  if (o.threads < 0 || o.threads > processors)
    throw InputError(label("threads") + " " + std::to_string(o.threads) + ": this machine has " +
                     std::to_string(processors) + " logical processors (0: all of them)");
}

}  // namespace

RunOptions default_run_options() {
  RunOptions o;
  o.backend_options = default_backend_options();
  return o;
}

nlohmann::json settings_json(const RunOptions& o) {
  nlohmann::json settings = nlohmann::json::object();
  for (const Setting& setting : run_settings()) settings[setting.key] = setting.write(o);
  return settings;
}

RunOptions adopt_settings(nlohmann::json file_settings, const RunOptions& asked,
                          const std::function<bool(const std::string& flag)>& flag_given) {
  JsonField(file_settings, "", "settings").require_object();
  if (!file_settings.contains("backends")) file_settings["backends"] = original_backends();
  // A file from before interleaved rounds was measured in one.
  if (!file_settings.contains("rounds")) file_settings["rounds"] = 1;
  if (!file_settings.contains("cpu_roofs")) file_settings["cpu_roofs"] = "measure";
  // A file from before --discard-throttled kept every sample.
  if (!file_settings.contains("discard_throttled")) file_settings["discard_throttled"] = false;
  if (!file_settings.contains("profile_runs")) file_settings["profile_runs"] = 0;
  // A file written before a backend's option existed was measured with what the option says.
  for (const BackendOption* option : backend_options())
    if (!option->value_before_option_existed.is_null() &&
        !file_settings.contains(option->settings_key))
      file_settings[option->settings_key] = option->value_before_option_existed;
  RunOptions from_file = asked;
  const JsonField settings(file_settings, "", "settings");
  for (const Setting& setting : run_settings()) setting.read(settings[setting.key], from_file);
  const nlohmann::json asked_json = settings_json(asked);
  for (const Setting& setting : run_settings()) {
    if (setting.flag == nullptr || !flag_given(setting.flag)) continue;
    const nlohmann::json& recorded = file_settings.at(setting.key);
    if (asked_json.at(setting.key) != recorded)
      throw InputError(std::string(setting.flag) + " " + asked_json.at(setting.key).dump() +
                       " differs from the run being resumed (" + recorded.dump() + ")");
  }
  return from_file;
}

RunSetup parse_settings(const RunOptions& o, SettingsSource source) {
  check_ranges(o, source);
  const auto label = [source](const char* key) { return label_of(key, source); };
  RunSetup setup;
  setup.request.suite = o.suite;
  setup.request.models = o.models;
  if (!o.batches.empty()) setup.request.batches = parse_batch_list(o.batches, label("batches"));
  if (!o.precisions.empty())
    setup.request.precisions = parse_precision_list(o.precisions, label("precisions"));
  if (!o.pass.empty()) {
    setup.request.pass = parse_pass_set(o.pass);
    if (!setup.request.pass)
      throw InputError(label("pass") + ": '" + o.pass + "' is not fwd or train");
  }
  setup.devices = parse_device(o.device, label("device"));
  setup.backends = parse_backends(o.backends, label("backends"));
  // Without --backend a build's backends are all asked for: a device none of them serves is the
  // doctor's to explain (a CPU-only build asked for a GPU), or a dry run's to plan for others.
  if (!o.backends.empty())
    check_backends_serve(setup.devices, setup.backends, label("device") + " " + o.device,
                         label("backends"));

  MeasureConfig& measuring = setup.measuring;
  measuring.seed = o.seed;
  const SuiteSampling& suite = suite_named(o.suite).sampling;
  measuring.rounds = o.rounds > 0 ? o.rounds : suite.rounds;
  measuring.sampler.warmup_min_s = suite.warmup_min_s;
  measuring.sampler.rule.noise_target = o.noise_target;
  measuring.sampler.rule.min_time_s = o.min_time_per_point;
  measuring.sampler.rule.max_time_s = o.max_time_per_point;
  measuring.sampler.discard_throttled = o.discard_throttled;
  measuring.sampler.fixed_runs = o.profile_runs;
  measuring.case_options.cache = o.warm ? CacheMode::warm : CacheMode::cold;
  measuring.case_options.algo =
      o.algo == "heuristic" ? AlgoChoice::heuristic : AlgoChoice::autotune;
  measuring.case_options.memory_limit_bytes =
      static_cast<std::uint64_t>(o.memory_limit_gb * (1ull << 30));
  return setup;
}

void check_resumed_models(const RunOptions& o, const std::vector<Model>& models) {
  for (const std::string& wanted : o.models) {
    if (find_model(models, wanted)) continue;
    std::string known;
    for (const Model& m : models) known += (known.empty() ? "" : ", ") + m.name;
    throw InputError(label_of("models", SettingsSource::resumed_file) + ": no model \"" + wanted +
                     "\" in the model files there are now (" + known + ")");
  }
}

// A library the file did not record (a backend added to layerbench since, whose descriptor now
// lists its library) measured none of its points, so is not compared.
void check_same_machine(const nlohmann::json& recorded, const nlohmann::json& current,
                        const std::string& file) {
  const nlohmann::json recorded_libraries = recorded.value("libraries", nlohmann::json::object());
  const auto identity = [&](const nlohmann::json& context) {
    nlohmann::json devices = nlohmann::json::object();
    for (const auto& d : context.value("devices", nlohmann::json::array()))
      devices[d.at("id").get<std::string>()] = d.value("name", "");
    const nlohmann::json all = context.value("libraries", nlohmann::json::object());
    nlohmann::json libraries = nlohmann::json::object();
    for (const auto& [library, version] : recorded_libraries.items())
      libraries[library] = all.contains(library) ? all.at(library) : nlohmann::json();
    return nlohmann::json{
        {"host", context.value("host", "")}, {"devices", devices}, {"libraries", libraries}};
  };
  const nlohmann::json was = identity(recorded), now = identity(current);
  for (const auto& [key, value] : was.items())
    if (now.at(key) != value)
      throw InputError("--resume: " + file + ": context." + key + ": " + value.dump() + ", here " +
                       now.at(key).dump() + ": the run was measured on another machine; " +
                       resume_refused_advice);
}

}  // namespace lb::cli
