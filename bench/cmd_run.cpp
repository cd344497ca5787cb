// `layerbench run`: plan the points, measure and validate each, write the results file as it
// goes (crash-safe, resumable), then add the model-level sums and print a summary.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "bench/backend_options.hpp"
#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "bench/run_context.hpp"
#include "harness/device_id.hpp"
#include "harness/input_error.hpp"
#include "harness/measure/interrupt.hpp"
#include "harness/measure/progress.hpp"
#include "harness/measure/runner.hpp"
#include "harness/model/workload.hpp"
#include "harness/plan/plan.hpp"
#include "harness/plan/plan_estimate.hpp"
#include "harness/platform.hpp"
#include "harness/results/aggregate.hpp"
#include "harness/results/results_file.hpp"
#include "harness/results/summary.hpp"
#include "harness/stats.hpp"

namespace lb::cli {
namespace {

namespace fs = std::filesystem;

// What the command line asked for. Everything that changes what a point measures is part of
// the settings a resumed run must share.
struct RunOptions {
  std::string suite = "quick";
  std::vector<std::string> models, workloads;
  std::string batches, precisions, pass, device = "auto";
  std::string backends;  // --backend: comma-separated names; empty = every backend of each device
  int threads = 0;
  double max_time_per_point = StoppingRule{}.max_time_s;
  double min_time_per_point = StoppingRule{}.min_time_s;
  double noise_target = StoppingRule{}.noise_target;
  bool warm = false;
  std::string algo = "autotune";
  double memory_limit_gb = 0;
  BackendOptionValues backend_options = default_backend_options();  // the backends' own flags
  std::uint64_t seed = 42;
  std::string output, resume;
  bool force = false, quiet = false, dry_run = false;
  std::vector<std::string> benchmark_args;
};

// One run setting, spelled once: its key in the results file's settings, the flag that sets it
// (none: not settable, so never compared on --resume) and how it is written and read.
struct Setting {
  const char* key;
  const char* flag;
  std::function<nlohmann::json(const RunOptions&)> write;
  std::function<void(const nlohmann::json&, RunOptions&)> read;  // throws on a wrong type
};

template <class T>
Setting member_setting(const char* key, const char* flag, T RunOptions::*member) {
  return {key, flag, [member](const RunOptions& o) { return nlohmann::json(o.*member); },
          [member](const nlohmann::json& value, RunOptions& o) { o.*member = value.get<T>(); }};
}

// A backend's option (bench/backend_options.hpp), read from a file as the string or number it is.
Setting backend_setting(const BackendOption& option) {
  const std::string key = option.settings_key;
  const bool number = option.choices.empty();
  return {option.settings_key.c_str(), option.flag.c_str(),
          [key](const RunOptions& o) { return o.backend_options.at(key); },
          [key, number](const nlohmann::json& value, RunOptions& o) {
            o.backend_options[key] = number ? nlohmann::json(value.get<double>())
                                            : nlohmann::json(value.get<std::string>());
          }};
}

const std::vector<Setting>& run_settings() {
  static const std::vector<Setting> settings = [] {
    std::vector<Setting> all = {
        member_setting("suite", "--suite", &RunOptions::suite),
        member_setting("models", "--model", &RunOptions::models),
        member_setting("workloads", "--workload", &RunOptions::workloads),
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
        {"cache", "--warm",
         [](const RunOptions& o) { return nlohmann::json(o.warm ? "warm" : "cold"); },
         [](const nlohmann::json& value, RunOptions& o) {
           o.warm = value.get<std::string>() == "warm";
         }},
        member_setting("algo", "--algo", &RunOptions::algo),
        member_setting("memory_limit_gb", "--memory-limit", &RunOptions::memory_limit_gb),
        member_setting("seed", "--seed", &RunOptions::seed)};
    for (const BackendOption* option : backend_options()) all.push_back(backend_setting(*option));
    return all;
  }();
  return settings;
}

nlohmann::json settings_json(const RunOptions& o) {
  nlohmann::json settings = nlohmann::json::object();
  for (const Setting& setting : run_settings()) settings[setting.key] = setting.write(o);
  return settings;
}

// Reads each setting from a results file's settings, naming the key when one is missing or
// mistyped.
void apply_settings(const nlohmann::json& s, RunOptions& o) {
  for (const Setting& setting : run_settings()) {
    const std::string name = std::string("settings.") + setting.key;
    if (!s.contains(setting.key)) throw InputError(name + " is missing");
    try {
      setting.read(s.at(setting.key), o);
    } catch (const nlohmann::json::exception&) {
      throw InputError(name + " is " + s.at(setting.key).dump() + ", not a value a run writes");
    }
  }
}

// The settings' values and ranges, checked for flags and for the settings of a resumed file
// alike (a file can carry what no flag would pass). The upper bounds are choices that keep the
// seconds and GiB conversions far from overflow: an hour per point, 2^24 GiB of memory;
// --threads stops at the machine's logical processors, since more OpenMP threads than
// processors only time the scheduler (10000 did not finish). The backends' options are checked
// against their own declarations.
void check_ranges(const RunOptions& o) {
  check_in_range("--max-time-per-point", o.max_time_per_point, 0, true, 3600,
                 "a number of seconds");
  check_in_range("--noise-target", o.noise_target, 0, true, 1, "a relative noise");
  check_in_range("--memory-limit", o.memory_limit_gb, 0, false, 1 << 24,
                 "a number of GiB (0: the device's own)");
  if (o.algo != "autotune" && o.algo != "heuristic")
    throw InputError("--algo \"" + o.algo + "\": not one of autotune, heuristic");
  for (const BackendOption* option : backend_options())
    check_backend_option(*option, o.backend_options.at(option->settings_key));
  const int processors = std::max(1, platform::cpu_features().threads);
  if (o.threads < 0 || o.threads > processors)
    throw InputError("--threads " + std::to_string(o.threads) + ": this machine has " +
                     std::to_string(processors) + " logical processors (0: all of them)");
}

// --device: auto (the CPU and every usable GPU), cpu, gpu (= gpu:0), gpu:N, all.
struct DeviceChoice {
  bool cpu = false;
  std::vector<int> gpus;
  bool all_gpus = false;
  bool gpu_required = false;  // a GPU was asked for by name: its absence is an error (exit 1)
};

DeviceChoice parse_device(const std::string& text) {
  DeviceChoice d;
  if (text == "auto" || text == "all") {
    d.cpu = d.all_gpus = true;
    d.gpu_required = text == "all";
    return d;
  }
  const std::optional<DeviceId> id = parse_device_id(text);
  if (!id) throw InputError("--device: '" + text + "' is not cpu, gpu, gpu:N, all or auto");
  if (id->kind == DeviceKind::cpu) {
    d.cpu = true;
  } else {
    d.gpus = {id->index};
    d.gpu_required = true;
  }
  return d;
}

// --backend: the registered backends named, in the registry's order; every one when empty.
std::vector<const BackendDescriptor*> parse_backends(const std::string& text) {
  const auto& all = backend_descriptors();
  if (text.empty()) return all;
  std::set<std::string> wanted;
  std::string known;
  for (const BackendDescriptor* d : all) known += (known.empty() ? "" : ", ") + d->name;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty()) throw InputError("--backend: empty item in '" + text + "'");
    if (std::none_of(all.begin(), all.end(), [&](const auto* d) { return d->name == item; }))
      throw InputError("--backend: unknown backend '" + item + "'; known in this build: " + known);
    wanted.insert(item);
  }
  if (text.back() == ',') throw InputError("--backend: empty item in '" + text + "'");
  std::vector<const BackendDescriptor*> chosen;
  for (const BackendDescriptor* d : all)
    if (wanted.count(d->name)) chosen.push_back(d);
  return chosen;
}

// The backends a file written before --backend existed measured with: each device's original
// one (keyed_device, harness/results/point.hpp), among those of this build.
std::string original_backends() {
  std::string names;
  for (const BackendDescriptor* d : backend_descriptors())
    if (keyed_device("", d->name).empty()) names += (names.empty() ? "" : ",") + d->name;
  return names;
}

// --benchmark_filter goes to Google Benchmark, which takes a regular expression (a leading '-'
// negates it) and runs what matches. One that does not compile or matches no planned point
// would end in a "complete" file with nothing measured.
void check_benchmark_filter(const std::vector<std::string>& benchmark_args, const Plan& plan) {
  const std::string flag = "--benchmark_filter=";
  for (const auto& arg : benchmark_args) {
    if (arg.rfind(flag, 0) != 0) continue;
    std::string pattern = arg.substr(flag.size());
    const bool negated = !pattern.empty() && pattern[0] == '-';
    if (negated) pattern.erase(0, 1);
    std::regex re;
    try {
      re = std::regex(pattern);
    } catch (const std::regex_error& e) {
      throw InputError("--benchmark_filter '" + arg.substr(flag.size()) +
                       "': not a regular expression (" + e.what() + ")");
    }
    const bool any = std::any_of(plan.points.begin(), plan.points.end(), [&](const auto& pp) {
      return std::regex_search(point_name(pp), re) != negated;
    });
    if (!any)
      throw InputError("--benchmark_filter '" + arg.substr(flag.size()) + "': matches none of " +
                       "the " + std::to_string(plan.points.size()) + " planned points (names " +
                       "like " + (plan.points.empty() ? "?" : point_name(plan.points.front())) +
                       "; model/op/bB/precision/pass/device)");
  }
}

// With --resume, the file's settings are the run's; flags given again must agree with them.
void adopt_settings(nlohmann::json file_settings, const CLI::App& sub, RunOptions& o) {
  if (!file_settings.contains("backends")) file_settings["backends"] = original_backends();
  // A file written before a backend's option existed was measured with what the option says.
  for (const BackendOption* option : backend_options())
    if (!option->value_before_option_existed.is_null() &&
        !file_settings.contains(option->settings_key))
      file_settings[option->settings_key] = option->value_before_option_existed;
  RunOptions from_file = o;
  apply_settings(file_settings, from_file);  // every setting present and well typed
  const nlohmann::json asked = settings_json(o);
  for (const Setting& setting : run_settings()) {
    if (setting.flag == nullptr || sub.count(setting.flag) == 0) continue;
    const nlohmann::json& recorded = file_settings.at(setting.key);
    if (asked.at(setting.key) != recorded)
      throw InputError(std::string(setting.flag) + " " + asked.at(setting.key).dump() +
                       " differs from the run being resumed (" + recorded.dump() + ")");
  }
  o = from_file;
}

void adopt_resumed_settings(const LoadedResults& previous, const CLI::App& sub, RunOptions& o) {
  try {
    adopt_settings(previous.document.at("settings"), sub, o);
  } catch (const InputError& e) {
    throw InputError("--resume: " + o.resume + ": " + e.what());
  }
}

// Peaks and memory per device, from the context's device records; --memory-limit caps a GPU's
// memory as the run did.
std::map<std::string, DeviceLimits> device_limits(const nlohmann::json& context,
                                                  double memory_limit_gb) {
  std::map<std::string, DeviceLimits> limits;
  for (const auto& d : context.value("devices", nlohmann::json::array())) {
    DeviceLimits& l = limits[d.at("id").get<std::string>()];
    if (d.value("kind", "") == "gpu") {
      const nlohmann::json facts = d.value("facts", nlohmann::json::object());
      if (facts.contains("memory_bytes"))
        l.memory_bytes = std::stoull(facts.at("memory_bytes").get<std::string>());
      if (memory_limit_gb > 0)
        l.memory_bytes = static_cast<std::uint64_t>(memory_limit_gb * (1ull << 30));
    }
    const nlohmann::json peaks = d.value("peaks", nlohmann::json::object());
    for (const auto& [precision, peak] : peaks.items())
      if (auto p = parse_precision(precision)) l.peak_tflops[*p] = peak.at("tflops").get<double>();
  }
  return limits;
}

// A resumed run must measure on the same machine: same host, devices and versions of the
// libraries the file recorded. A library it did not record (a backend added to layerbench since,
// whose descriptor now lists its library) measured none of its points, so is not compared.
void check_same_machine(const nlohmann::json& recorded, const nlohmann::json& current) {
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
      throw InputError("--resume: the run was measured on another machine (" + key + ": " +
                       value.dump() + ", here: " + now.at(key).dump() + ")");
}

// --dry-run plans without touching the machine: the devices --device names, one GPU (gpu:0)
// standing for "every GPU" (auto, all) since a scheduler, not this host, knows a node's count.
// Without --backend, a build with no GPU backend still plans GPU points, keyed as the CUDA
// backend's are (no "@backend"): the nodes that run them have it.
int print_dry_run(const RunRequest& request, const std::vector<Model>& models,
                  const DeviceChoice& choice, const std::vector<const BackendDescriptor*>& backends,
                  double max_time_per_point_s) {
  std::vector<DeviceTarget> devices;
  std::vector<std::string> gpu_backends;
  for (const BackendDescriptor* d : backends) {
    if (d->device_kind == DeviceKind::cpu && choice.cpu)
      devices.push_back({to_string(DeviceId{DeviceKind::cpu, 0}), false, d->name});
    if (d->device_kind == DeviceKind::gpu) gpu_backends.push_back(d->name);
  }
  const bool every_backend = backends.size() == backend_descriptors().size();
  if (gpu_backends.empty() && every_backend) gpu_backends.push_back("");
  std::vector<int> gpus = choice.gpus;
  if (choice.all_gpus) gpus.push_back(0);
  for (int i : gpus)
    for (const auto& backend : gpu_backends)
      devices.push_back({to_string(DeviceId{DeviceKind::gpu, i}), true, backend});
  const Plan plan = expand_plan(request, models, devices);
  std::cout
      << estimate_json(estimate_plan(plan, max_time_per_point_s), max_time_per_point_s).dump(2)
      << "\n";
  return exit_ok;
}

// The devices --device asks for and a backend for each. The doctor is asked before any GPU is
// touched, so an unusable one is explained.
struct ChosenDevices {
  RunContext machine;
  std::vector<DeviceTarget> targets;
  std::map<std::string, std::unique_ptr<Backend>> backends;  // by keyed_device(id, backend)
  bool gpu_unusable = false;  // a GPU asked for by name cannot be used (exit 1)
};

ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors,
                             const RunOptions& o) {
  ChosenDevices chosen;
  chosen.machine = probe_run_context();
  const auto& diagnosis = chosen.machine.diagnosis;
  std::vector<int> gpu_indices;
  if (!choice.gpus.empty() || choice.all_gpus) {
    if (!diagnosis.gpu_usable) {
      if (choice.gpu_required) {
        std::cerr << diagnosis.verdict << "\n";
        for (const auto& fix : diagnosis.fixes) std::cerr << "  How to fix: " << fix << "\n";
        chosen.gpu_unusable = true;
      } else if (!o.quiet) {
        std::cerr << "layerbench: " << diagnosis.verdict << " (running the CPU points)\n";
      }
    } else if (choice.all_gpus) {
      gpu_indices = diagnosis.usable_gpus;
    } else {
      for (int i : choice.gpus) {
        if (std::find(diagnosis.usable_gpus.begin(), diagnosis.usable_gpus.end(), i) ==
            diagnosis.usable_gpus.end())
          throw InputError("--device: " + to_string(DeviceId{DeviceKind::gpu, i}) +
                           " is not a usable GPU here (" + diagnosis.verdict + ")");
        gpu_indices.push_back(i);
      }
    }
  }

  bool gpu_backend_built = false;
  for (const BackendDescriptor* descriptor : descriptors) {
    if (descriptor->device_kind == DeviceKind::cpu && choice.cpu) {
      auto cpu = descriptor->make(0, o.threads, options_of(*descriptor, o.backend_options));
      chosen.targets.push_back({cpu->device(), false, descriptor->name});
      chosen.backends[keyed_device(cpu->device(), descriptor->name)] = std::move(cpu);
    }
    if (descriptor->device_kind != DeviceKind::gpu) continue;
    gpu_backend_built = true;
    for (int index : gpu_indices) {
      auto gpu = descriptor->make(index, o.threads, options_of(*descriptor, o.backend_options));
      chosen.targets.push_back({gpu->device(), true, descriptor->name});
      chosen.backends[keyed_device(gpu->device(), descriptor->name)] = std::move(gpu);
    }
  }
  if (!gpu_indices.empty() && !gpu_backend_built)
    throw std::runtime_error("this layerbench was built without CUDA: no GPU backend");
  return chosen;
}

// The results file: a new one, or the resumed one after checking it was measured here.
std::unique_ptr<ResultsWriter> make_writer(RunOptions& o, std::optional<LoadedResults> previous,
                                           const ChosenDevices& devices) {
  if (o.output.empty() && o.resume.empty()) o.output = default_output_path();
  nlohmann::json context =
      context_json(devices.machine, devices.backends, o.seed, o.warm, o.threads);
  if (previous) {
    check_same_machine(previous->document.at("context"), context);
    return std::make_unique<ResultsWriter>(o.resume, std::move(*previous));
  }
  context["noise_target"] = o.noise_target;
  context["max_time_per_point_s"] = o.max_time_per_point;
  return std::make_unique<ResultsWriter>(o.output, std::move(context), settings_json(o), o.force);
}

// Measures the plan's points not yet in the writer's file, then writes the model records and
// prints the summary. Returns the exit code.
int run_points(const RunOptions& o, const Plan& plan, const std::vector<Model>& models,
               ChosenDevices& devices, std::unique_ptr<ResultsWriter> writer) {
  std::map<std::string, Point> already;
  for (const auto& p : writer->points()) already.emplace(p.key(), p);
  OomSweep sweep;
  for (const auto& [key, p] : already)
    if (p.status == Status::oom) sweep.record_oom(p);

  RunLoop loop;
  loop.config.seed = o.seed;
  loop.config.sampler.rule.noise_target = o.noise_target;
  loop.config.sampler.rule.min_time_s = o.min_time_per_point;
  loop.config.sampler.rule.max_time_s = o.max_time_per_point;
  loop.config.case_options.cache = o.warm ? CacheMode::warm : CacheMode::cold;
  loop.config.case_options.algo =
      o.algo == "heuristic" ? AlgoChoice::heuristic : AlgoChoice::autotune;
  loop.config.case_options.memory_limit_bytes =
      static_cast<std::uint64_t>(o.memory_limit_gb * (1ull << 30));
  loop.backend_for = [&](const PlannedPoint& pp) -> Backend& {
    return *devices.backends.at(keyed_device(pp.device, pp.backend));
  };
  std::optional<std::string> write_error;  // the disk refused the results file mid-run
  loop.stop = [&] { return interrupt::stop_requested().load() || write_error.has_value(); };

  double total_gflop = 0;
  int to_run = 0;
  for (const auto& pp : plan.points) {
    if (already.count(point_name(pp))) continue;
    total_gflop += pp.gflop;
    ++to_run;
  }
  const Progress::Mode mode = o.quiet                          ? Progress::Mode::quiet
                              : platform::stderr_is_terminal() ? Progress::Mode::terminal
                                                               : Progress::Mode::lines;
  Progress progress(mode, to_run, total_gflop);
  if (!o.quiet && !already.empty())
    std::cerr << "resuming " << writer->file().string() << ": " << already.size()
              << " points already measured, " << to_run << " to go\n";

  loop.pre_empt = [&](const PlannedPoint& pp) -> std::optional<Point> {
    if (auto it = already.find(point_name(pp)); it != already.end()) return it->second;
    if (plan.sweep_until_oom) {
      if (auto first = sweep.smaller_oom_batch(pp)) {
        const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
        Point p = describe_point(pp, problem);
        p.status = Status::oom;
        p.reason = oom_skip_reason(*first);
        return p;
      }
    }
    return std::nullopt;
  };
  loop.on_point = [&](const PlannedPoint& pp, const Point& p) {
    if (already.count(p.key())) return;  // resumed: already in the file
    if (p.status == Status::oom) sweep.record_oom(pp);
    try {
      writer->append(p);
    } catch (const OutputError& e) {
      write_error = e.what();
      return;
    }
    progress.point_done(p.key(), std::string(name(p.status)), pp.gflop);
  };

  loop.run(plan.points, o.benchmark_args);
  progress.finish();

  const Aggregation results =
      aggregate(writer->points(), models, device_limits(writer->context(), o.memory_limit_gb));
  nlohmann::json model_records = nlohmann::json::array(),
                 boundary_records = nlohmann::json::array();
  for (const auto& r : results.models) model_records.push_back(to_json(r));
  for (const auto& b : results.boundaries) boundary_records.push_back(to_json(b));
  const bool interrupted = interrupt::stop_requested().load();
  if (!write_error) {
    record_machine_state_at_end(*writer, o.quiet);
    try {
      writer->finish(interrupted ? "interrupted" : "complete", model_records, boundary_records);
    } catch (const OutputError& e) {
      write_error = e.what();
    }
  }
  if (write_error) {
    std::cerr << "layerbench run: " << *write_error << "\n  The points measured before it are in "
              << writer->file().string() << " and its journal; make room, then `layerbench run "
              << "--resume " << writer->file().string() << "` measures the rest.\n";
    return exit_failed;
  }

  int failed = 0;
  for (const auto& p : writer->points())
    if (p.status == Status::failed) ++failed;
  if (!o.quiet) {
    std::cout << summary_table(results.models);
    std::cout << "results: " << writer->file().string() << " (" << writer->points().size()
              << " points, " << failed << " failed)\n";
  }
  if (interrupted) return exit_interrupted;
  return failed > 0 || devices.gpu_unusable ? exit_failed : exit_ok;
}

int run_main(RunOptions o, const CLI::App& sub) {
  // From here a first Ctrl-C or SIGTERM stops the run at the next point boundary with a
  // loadable file marked interrupted; a second one ends the process at once.
  interrupt::arm(exit_interrupted);
  std::optional<LoadedResults> previous;
  if (!o.resume.empty()) {
    previous = load_results(o.resume);
    const std::string status = previous->document.value("status", "");
    if (status == "complete")
      throw InputError("--resume: " + o.resume + " is already complete; nothing to resume");
    adopt_resumed_settings(*previous, sub, o);
  }
  try {
    check_ranges(o);
  } catch (const InputError& e) {
    if (previous) throw InputError("--resume: " + o.resume + ": settings: " + e.what());
    throw;
  }

  // Models: the shipped ones plus --workload files (a name defined twice is an error).
  std::vector<fs::path> model_files = builtin_model_files();
  model_files.insert(model_files.end(), o.workloads.begin(), o.workloads.end());
  const std::vector<Model> models = load_models(model_files);

  RunRequest request;
  request.suite = o.suite;
  request.models = o.models;
  if (!o.batches.empty()) request.batches = parse_batch_list(o.batches);
  if (!o.precisions.empty()) request.precisions = parse_precision_list(o.precisions);
  if (!o.pass.empty()) request.pass = parse_pass_set(o.pass);

  // Devices: ask the doctor before touching a GPU, so an unusable one is explained.
  const DeviceChoice choice = parse_device(o.device);
  const auto backends = parse_backends(o.backends);
  if (o.dry_run) return print_dry_run(request, models, choice, backends, o.max_time_per_point);
  ChosenDevices devices = choose_devices(choice, backends, o);
  if (devices.targets.empty() && devices.gpu_unusable) return exit_failed;  // nothing else asked
  const Plan plan = expand_plan(request, models, devices.targets);
  check_benchmark_filter(o.benchmark_args, plan);
  auto writer = make_writer(o, std::move(previous), devices);
  return run_points(o, plan, models, devices, std::move(writer));
}

// The flags this build's backends declare (the CUDA backend's --layout, --cudnn-api,
// --workspace-mb); checked with the other settings in check_ranges. A build without that backend
// does not know its flags: they are refused as unknown, naming the backends it has.
void add_backend_flags(CLI::App& sub, const std::shared_ptr<RunOptions>& opts) {
  for (const BackendOption* option : backend_options()) {
    const std::string key = option->settings_key;
    if (option->choices.empty())
      sub.add_option_function<double>(
          option->flag, [opts, key](const double& v) { opts->backend_options[key] = v; },
          option->help);
    else
      sub.add_option_function<std::string>(
          option->flag, [opts, key](const std::string& v) { opts->backend_options[key] = v; },
          option->help);
  }
}

// An argument `run` does not take. Google Benchmark's flags pass on; a flag of a backend this
// build lacks (e.g. --cudnn-api in a CPU-only build) is named with the backends there are.
CLI::ExtrasError unknown_argument(const std::string& argument) {
  std::string backends;
  for (const BackendDescriptor* backend : backend_descriptors())
    backends += (backends.empty() ? "" : ", ") + backend->name;
  return CLI::ExtrasError(argument + ": not a flag of `layerbench run` in this build (its " +
                              "backends: " + (backends.empty() ? "none" : backends) + ")",
                          CLI::ExitCodes::ExtrasError);
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto opts = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand(
      "run", "Measure and validate the layers of the chosen models; write a results file");
  sub->add_option("--suite", opts->suite, "quick (default), standard or full")
      ->check(CLI::IsMember({"quick", "standard", "full"}));
  sub->add_option("--model", opts->models, "Model names (see `layerbench list`); repeatable");
  sub->add_option("--workload", opts->workloads, "Extra model files (bench/models/SCHEMA.md)");
  sub->add_option("--batch", opts->batches, "Batch sizes, e.g. 1,8,32");
  sub->add_option("--precision", opts->precisions, "Precisions, e.g. fp32,tf32,fp16,bf16,fp8");
  sub->add_option("--pass", opts->pass, "fwd (inference) or train (fwd + both gradients)")
      ->check(CLI::IsMember({"fwd", "train"}));
  sub->add_option("--device", opts->device, "auto (default), cpu, gpu, gpu:N or all");
  sub->add_option("--backend", opts->backends,
                  "Backends, e.g. onednn,openblas (default: every backend of each device)");
  sub->add_option("--threads", opts->threads, "CPU threads (default: all cores)");
  sub->add_option("--max-time-per-point", opts->max_time_per_point,
                  "Seconds of sampling after which a noisy point stops (default 1)");
  sub->add_option("--noise-target", opts->noise_target,
                  "Relative noise at which sampling stops early (default 0.01)");
  sub->add_flag("--warm", opts->warm, "Measure with warm caches (default: cold)");
  sub->add_option("--algo", opts->algo,
                  "Algorithm choice, every backend: autotune (default: time the library's "
                  "candidates, keep the fastest) or heuristic (the library's first choice)")
      ->check(CLI::IsMember({"autotune", "heuristic"}));
  add_backend_flags(*sub, opts);
  sub->add_option("--memory-limit", opts->memory_limit_gb,
                  "Behave as if the GPU had this many GiB");
  sub->add_option("--seed", opts->seed, "Seed of the random inputs (default 42)");
  sub->add_option("-o,--output", opts->output, "Results file (default results/<host>-<time>.json)");
  sub->add_option("--resume", opts->resume, "Continue an incomplete results file");
  sub->add_flag("--force", opts->force, "Overwrite an existing results file");
  sub->add_flag("--quiet", opts->quiet, "No progress and no summary");
  sub->add_flag("--dry-run", opts->dry_run,
                "Print the plan's point count and estimated seconds as JSON; measure nothing");
  sub->allow_extras();  // --benchmark_* flags go on to Google Benchmark
  sub->callback([&action, opts, sub] {
    for (const auto& extra : sub->remaining()) {
      if (extra.rfind("--benchmark_", 0) != 0) throw unknown_argument(extra);
      opts->benchmark_args.push_back(extra);
    }
    action = [opts, sub] {
      return report_input_errors("run", [&] { return run_main(*opts, *sub); });
    };
  });
}

}  // namespace lb::cli
