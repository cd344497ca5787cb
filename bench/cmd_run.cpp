// `layerbench run`: reads the flags (or a resumed file's settings) into typed values, chooses
// the devices, opens the results file, runs the session (harness/measure/session.hpp), prints
// what each of its steps returns, then a summary and an exit code.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "bench/backend_options.hpp"
#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "bench/device_choice.hpp"
#include "bench/model_flags.hpp"
#include "bench/python_probe.hpp"
#include "bench/run_context.hpp"
#include "bench/run_settings.hpp"
#include "harness/measure/benchmark_flags.hpp"
#include "harness/measure/interrupt.hpp"
#include "harness/measure/point_watchdog.hpp"
#include "harness/measure/session.hpp"
#include "harness/model/model_file.hpp"
#include "harness/os/platform.hpp"
#include "harness/plan/plan_estimate.hpp"
#include "harness/plan/suites.hpp"
#include "harness/results/resume_check.hpp"
#include "harness/results/summary.hpp"
#include "harness/util/input_error.hpp"
#include "harness/util/utf8.hpp"

namespace lb::cli {
namespace {

namespace fs = std::filesystem;

// The command line: the settings, and what only this invocation decides.
struct RunFlags {
  RunOptions settings = default_run_options();
  std::string seed;  // read into settings.seed at the flag boundary
  std::string output, resume;
  std::string python;        // --python, as the doctor takes it
  double point_timeout = 0;  // --point-timeout; 0: not given, the default bound
  bool force = false, quiet = false, dry_run = false;
  bool assume_usable_gpu = false;  // --dry-run for another machine: its GPUs usable
  std::vector<std::string> benchmark_args;
};

// The flags' text into the settings' values, refusing what CLI11 alone would let through: an
// empty value (a shell variable left unset, not a request for the default), a seed outside
// 0..2^64-1, a folder or a path that is not UTF-8 as --model-file. A relative --model-file is
// stored absolute, so that --resume from another folder finds it.
void read_flags(RunFlags& f, const CLI::App& sub) {
  for (const CLI::Option* option : sub.get_options())
    for (const std::string& value : option->results())
      if (value.empty() && option->get_type_size() != 0)
        throw InputError(option->get_name() + ": empty value");
  if (!f.seed.empty()) {
    const auto [end, error] =
        std::from_chars(f.seed.data(), f.seed.data() + f.seed.size(), f.settings.seed);
    if (error != std::errc() || end != f.seed.data() + f.seed.size())
      throw InputError("--seed: '" + f.seed + "' is not an integer from 0 to 2^64-1");
  }
  for (std::string& model_file : f.settings.model_files) {
    if (fs::is_directory(model_file))
      throw InputError("--model-file: " + model_file + " is a folder, not a model file");
    model_file = fs::absolute(model_file).lexically_normal().string();
    if (!is_utf8(model_file))
      throw InputError("--model-file: " + utf8_or_replaced(model_file) +
                       ": its path is not UTF-8 text, which the results file must record it as "
                       "(for --resume); rename it");
  }
  for (const std::string& argument : f.benchmark_args) check_benchmark_flag(argument);
  if (f.assume_usable_gpu && !f.dry_run)
    throw InputError("--assume-usable-gpu: only with --dry-run (a run measures this machine)");
  // A week at most: a chosen bound, far from the overflow of the watchdog's clock arithmetic.
  if (sub.count("--point-timeout"))
    check_in_range("--point-timeout", f.point_timeout, 0, true, 7 * 24 * 3600,
                   "a number of seconds");
  // What the suite measures with unless the flags say otherwise, recorded as numbers so that a
  // resumed run goes on the same way.
  const SuiteSampling& suite = suite_named(f.settings.suite).sampling;
  if (sub.count("--rounds") > 0 && f.settings.rounds < 1)
    throw InputError("--rounds " + std::to_string(f.settings.rounds) +
                     ": not a number of rounds from 1 to 100");
  if (f.settings.rounds == 0) f.settings.rounds = suite.rounds;
  if (sub.count("--max-time-per-point") == 0) f.settings.max_time_per_point = suite.max_time_s;
  f.settings.min_time_per_point = std::min(suite.min_time_s, f.settings.max_time_per_point);
}

// A resumed file must continue exactly: its model files and points are the plan's
// (harness/results/resume_check.hpp). Checked before the machine is measured, so that a refusal
// is quick. A file from before the model files' hashes records them from here on.
void check_resumed_file(const RunFlags& f, LoadedResults& previous, const Plan& plan,
                        const ChosenDevices& devices, const MeasureConfig& measuring) {
  const std::string cache = f.settings.warm ? "warm" : "cold";
  const PointRefusal refusal = [&](const PlannedPoint& pp) -> std::optional<std::string> {
    const auto it = devices.backends.find(keyed_device(pp.device, pp.backend));
    if (it == devices.backends.end()) return std::nullopt;
    try {
      if (const auto refused = refused_point(pp, *it->second, measuring)) return refused->reason;
    } catch (const std::exception&) {
      // A support check that ran out of memory: the point is measured again, not refused.
    }
    return std::nullopt;
  };
  try {
    if (check_resumable(previous, f.resume, plan, cache, refusal) == ResumeRecord::exact) return;
  } catch (const ResultsError& e) {
    throw InputError(std::string("--resume: ") + e.what());
  }
  previous.document["settings"]["model_files"] = model_files_json(plan);
  if (!f.quiet)
    std::cerr << "layerbench run: " << f.resume << " was written before results files recorded "
              << "their model files' hashes: its points match the model files as they are now, "
              << "which it records from here on\n";
}

// The results file: a new one, recording the model files the plan reads, or the resumed one
// after checking it was measured here.
std::unique_ptr<ResultsWriter> open_results(const RunFlags& f,
                                            std::optional<LoadedResults> previous,
                                            MachineRecord machine, const Plan& plan) {
  if (previous) {
    check_same_machine(previous->document.at("context"), machine.context, f.resume);
    return std::make_unique<ResultsWriter>(f.resume, std::move(*previous));
  }
  machine.context["noise_target"] = f.settings.noise_target;
  machine.context["max_time_per_point_s"] = f.settings.max_time_per_point;
  nlohmann::json settings = settings_json(f.settings);
  settings["model_files"] = model_files_json(plan);
  return std::make_unique<ResultsWriter>(f.output.empty() ? default_output_path() : f.output,
                                         std::move(machine.context), std::move(settings), f.force);
}

// The run's settings, typed: from the flags, or with --resume from the file (flags given again
// must agree with it), a bad one named by the file and its field.
RunSetup read_settings(RunFlags& f, const CLI::App& sub, std::optional<LoadedResults>& previous) {
  if (f.resume.empty()) return parse_settings(f.settings, SettingsSource::flags);
  previous = load_results(f.resume);
  try {
    check_resumable_status(previous->document, f.resume);
  } catch (const ResultsError& e) {
    throw InputError(std::string("--resume: ") + e.what());
  }
  try {
    f.settings = adopt_settings(previous->document.at("settings"), f.settings,
                                [&](const std::string& flag) { return sub.count(flag) > 0; });
    return parse_settings(f.settings, SettingsSource::resumed_file);
  } catch (const std::exception& e) {
    throw InputError("--resume: " + f.resume + ": " + e.what() + "; " + resume_refused_advice);
  }
}

// The shipped models and the --model-file files; for a resumed file, a model file it names that
// cannot be read any more is its settings' fault, named so.
std::vector<Model> read_models(const RunFlags& f) {
  std::vector<fs::path> files = builtin_model_files();
  files.insert(files.end(), f.settings.model_files.begin(), f.settings.model_files.end());
  if (f.resume.empty()) return load_models(files);
  const std::string refused = "--resume: " + f.resume + ": ";
  std::vector<Model> models;
  try {
    models = load_models(files);
  } catch (const InputError& e) {
    throw InputError(refused + "settings.workloads: " + e.what() + "; " + resume_refused_advice);
  }
  try {
    check_resumed_models(f.settings, models);
  } catch (const InputError& e) {
    throw InputError(refused + e.what() + "; " + resume_refused_advice);
  }
  return models;
}

// --dry-run's plan (after --benchmark_filter, as the run) and estimate. Its devices other than
// the CPU are the ones the run would measure on, chosen from the verdicts as the run chooses them
// (or assumed usable for another machine); none is touched. The CPU backends are asked which
// points they cannot run, as the run asks them, so those count as nothing; other points count
// as runnable.
struct DryRun {
  nlohmann::json estimate;       // null when there is nothing to plan
  bool device_unusable = false;  // a device asked for by name cannot be used: the run exits 1
};
DryRun dry_run_estimate(const RunFlags& f, const RunSetup& setup,
                        const std::vector<Model>& models) {
  const RunOptions& o = f.settings;
  std::vector<DeviceVerdict> verdicts;
  if (f.assume_usable_gpu) {
    verdicts = assumed_usable(setup.devices);
  } else {
    const RunContext machine = probe_run_context("");
    verdicts = accelerator_verdicts(machine.usability, machine.diagnosis);
  }
  DryRun dry;
  const std::vector<DeviceId> accelerators =
      accelerators_to_run(setup.devices, verdicts, f.quiet, dry.device_unusable);
  const std::vector<DeviceTarget> targets =
      dry_run_targets(setup.devices, setup.backends, accelerators);
  if (targets.empty() && dry.device_unusable) return dry;  // the run measures nothing either
  const Plan plan = filter_plan(f.benchmark_args, expand_plan(setup.request, models, targets));
  std::map<std::string, std::unique_ptr<Backend>> cpu_backends;
  for (const BackendDescriptor* d : setup.backends)
    if (d->device_kind == cpu_kind && setup.devices.cpu)
      cpu_backends[keyed_device("cpu", d->name)] =
          d->make(0, o.threads, options_of(*d, o.backend_options));
  const auto refused = [&](const PlannedPoint& pp) {
    const auto it = cpu_backends.find(keyed_device(pp.device, pp.backend));
    if (it == cpu_backends.end()) return false;
    try {
      return refused_point(pp, *it->second, setup.measuring).has_value();
    } catch (const std::exception&) {
      return false;  // a support check that ran out of memory: the run asks again
    }
  };
  const EstimateRule rule{o.max_time_per_point, setup.measuring.rounds,
                          setup.measuring.sampler.warmup_min_s, ExtraRoundsRule{}.budget_fraction};
  dry.estimate = estimate_json(estimate_plan(plan, rule, refused), rule);
  for (const DeviceVerdict& v : verdicts)
    if (v.kind == gpu_kind && setup.devices.asks_for(gpu_kind))
      dry.estimate["gpu_verdict"] = v.verdict;
  return dry;
}

// What the session found before measuring: a resumed file's points, the refused points per
// device and reason, the rounds.
void print_session_start(const SessionStart& start, const ResultsWriter& writer) {
  if (start.resumed > 0)
    std::cerr << "resuming " << writer.file().string() << ": " << start.resumed
              << " points already in the file, " << start.to_run << " to go\n";
  for (const auto& [device, reasons] : start.refusals) {
    int points = 0;
    for (const auto& [reason, n] : reasons) points += n;
    std::cerr << device << " cannot run " << points << " point" << (points == 1 ? "" : "s")
              << " (recorded as unsupported):\n";
    for (const auto& [reason, n] : reasons) std::cerr << "  " << n << "  " << reason << "\n";
  }
  if (start.rounds > 1)
    std::cerr << start.to_run << " points to measure in " << start.rounds << " rounds\n";
}

// The session's steps in order, each one's news printed before the next step speaks: what it
// found, the time split, the machine's state at the end (its warning), the finished file.
SessionOutcome run_session(const Plan& plan, const std::vector<Model>& models,
                           ResultsWriter& writer, const SessionConfig& config,
                           const ChosenDevices& devices, bool quiet) {
  Session session(plan, models, writer, config, [&](const PlannedPoint& pp) -> Backend& {
    return *devices.backends.at(keyed_device(pp.device, pp.backend));
  });
  if (!quiet) print_session_start(session.start(), writer);
  SessionOutcome outcome = session.measure();
  if (!quiet) std::cerr << time_split_text(outcome.spent, outcome.wall_s) << "\n";
  if (!outcome.write_error) {
    record_machine_state_at_end(writer, quiet);
    outcome.write_error = session.finish(outcome);
  }
  return outcome;
}

// The summary and the exit code of a finished session.
int report_outcome(const SessionOutcome& outcome, const ResultsWriter& writer, bool quiet,
                   bool device_unusable) {
  if (outcome.write_error) {
    std::cerr << "layerbench run: " << *outcome.write_error
              << "\n  The points measured before it are in " << writer.file().string()
              << " and its journal; make room, then `layerbench run --resume "
              << writer.file().string() << "` measures the rest.\n";
    return exit_failed;
  }
  if (!quiet) {
    std::cout << summary_table(outcome.results.models);
    const auto unstable =
        std::count_if(writer.points().begin(), writer.points().end(),
                      [](const Point& p) { return p.timing && p.timing->unstable; });
    std::cout << "results: " << writer.file().string() << " (" << writer.points().size()
              << " points, " << outcome.failed << " failed"
              << (unstable ? ", " + std::to_string(unstable) + " unstable" : "") << ")\n";
  }
  if (outcome.interrupted) return exit_interrupted;
  return outcome.failed > 0 || device_unusable ? exit_failed : exit_ok;
}

int run_main(RunFlags f, const CLI::App& sub) {
  // From here a first Ctrl-C or SIGTERM stops the run at the next point boundary with a
  // loadable file marked interrupted; a second one ends the process at once.
  interrupt::arm(exit_interrupted);
  read_flags(f, sub);
  // main raised the soft limit as far as the hard one lets it (commands.hpp).
  if (const std::uint64_t files = platform::raise_open_file_limit(wanted_open_files);
      files < least_open_files) {
    std::cerr << "layerbench run: this process may open only " << files
              << " files (ulimit -n); it needs at least " << least_open_files
              << ": raise the limit (`ulimit -n 1024`) and run again\n";
    return exit_failed;
  }
  std::optional<LoadedResults> previous;
  const RunSetup setup = read_settings(f, sub, previous);
  if (previous) interrupt::note_results_file_exists();

  const std::vector<Model> models = read_models(f);
  const RunOptions& o = f.settings;
  if (f.dry_run) {
    const DryRun dry = dry_run_estimate(f, setup, models);
    if (!dry.estimate.is_null()) std::cout << dry.estimate.dump(2) << "\n";
    return dry.device_unusable ? exit_failed : exit_ok;
  }
  std::string python;
  try {
    python = resolve_python(f.python);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--python: ") + e.what());
  }
  ChosenDevices devices =
      choose_devices(setup.devices, setup.backends, o.threads, o.backend_options, f.quiet, python);
  if (devices.targets.empty() && devices.device_unusable) return exit_failed;  // nothing else
  const Plan plan = expand_plan(setup.request, models, devices.targets);
  filter_plan(f.benchmark_args, plan);  // refuses a filter that leaves nothing to measure
  if (previous) check_resumed_file(f, *previous, plan, devices, setup.measuring);

  MachineRecord machine = machine_record(devices.machine, devices.backends, o.seed, o.warm,
                                         o.threads, o.cpu_roofs == "measure");
  SessionConfig session;
  session.measuring = setup.measuring;
  session.benchmark_args = f.benchmark_args;
  session.progress = f.quiet                          ? Progress::Mode::quiet
                     : platform::stderr_is_terminal() ? Progress::Mode::terminal
                                                      : Progress::Mode::lines;
  session.device_limits =
      previous ? recorded_limits(previous->document.at("context")) : machine.limits;
  cap_gpu_memory(session.device_limits, o.memory_limit_gb);
  session.point_time_bound_s =
      f.point_timeout > 0 ? f.point_timeout : default_point_time_bound_s(o.max_time_per_point);
  session.stuck_point_exit_code = exit_point_stuck;
  auto writer = open_results(f, std::move(previous), std::move(machine), plan);
  interrupt::note_results_file_exists();
  const SessionOutcome outcome = run_session(plan, models, *writer, session, devices, f.quiet);

  return report_outcome(outcome, *writer, f.quiet, devices.device_unusable);
}

// The flags this build's backends declare (the CUDA backend's --layout, --cudnn-api,
// --workspace-mb). A build without that backend does not know its flags: they are refused as
// unknown, naming the backends it has.
void add_backend_flags(CLI::App& sub, BackendOptionValues& values) {
  for (const BackendOption* option : backend_options()) {
    const std::string key = option->settings_key;
    if (option->choices.empty())
      sub.add_option_function<double>(
          option->flag, [&values, key](const double& v) { values[key] = v; }, option->help);
    else
      sub.add_option_function<std::string>(
          option->flag, [&values, key](const std::string& v) { values[key] = v; }, option->help);
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
  auto flags = std::make_shared<RunFlags>();
  RunOptions& o = flags->settings;
  auto* sub = app.add_subcommand(
      "run", "Measure and validate the layers of the chosen models; write a results file");
  sub->add_option("--suite", o.suite,
                  "One of " + suite_names_text() + " (default " + default_suite().name +
                      "; `layerbench list --suites` says what each measures)")
      ->check(CLI::IsMember(suite_names()));
  add_model_flags(*sub, o.models, o.model_files, o.precisions, o.pass,
                  "Precisions, e.g. fp32,tf32,fp16,bf16,fp8 (default: the suite's)");
  sub->add_option("--batch", o.batches, "Batch sizes, e.g. 1,8,32");
  sub->add_option("--device", o.device,
                  "auto (default), cpu, gpu, gpu:N, KIND:N (a backend's own device kind) or all");
  sub->add_option("--backend", o.backends,
                  "Backends, e.g. onednn,openblas (default: every backend of each device)");
  sub->add_option("--threads", o.threads, "CPU threads (default: all cores)");
  sub->add_option("--max-time-per-point", o.max_time_per_point,
                  "Seconds of sampling per round after which a noisy point stops (default: the "
                  "suite's)");
  sub->add_option(
      "--point-timeout", flags->point_timeout,
      "Seconds after which a point is stopped between samples and recorded failed; "
      "one stuck past twice that (at least 30 s more) stops the run, exit 124. Default: "
      "300 + 20 x --max-time-per-point");
  sub->add_option(
      "--rounds", o.rounds,
      "Visits of every point, 1 to 100; a point keeps the median of its rounds' figures and "
      "records the spread between rounds; with 2 or 3, points whose rounds disagree get up to 4 "
      "(default: the suite's)");
  sub->add_option("--noise-target", o.noise_target,
                  "Relative noise at which sampling stops early (default 0.01)");
  sub->add_flag("--warm", o.warm, "Measure with warm caches (default: cold)");
  sub->add_flag("--discard-throttled", o.discard_throttled,
                "GPU points: re-take samples NVML says a power or thermal cap throttled (bounded "
                "like pre-empted ones); a point left throttled is flagged");
  sub->add_option(
      "--profile", o.profile_runs,
      "Exactly N timed runs a point after the warm-up, no stopping rule, each GPU "
      "point's inside an NVTX range named by its point id (for Nsight; default 0: off)");
  sub->add_option("--algo", o.algo,
                  "Algorithm choice, every backend: autotune (default: time the library's "
                  "candidates, keep the fastest) or heuristic (the library's first choice)")
      ->check(CLI::IsMember({"autotune", "heuristic"}));
  sub->add_option("--cpu-roofs", o.cpu_roofs,
                  "measure (default: the CPU's FMA peak and memory bandwidth, about a second, for "
                  "the roofline and the peak check) or skip (no CPU roofs in the file)")
      ->check(CLI::IsMember({"measure", "skip"}));
  add_backend_flags(*sub, o.backend_options);
  sub->add_option("--memory-limit", o.memory_limit_gb, "Behave as if the GPU had this many GiB");
  sub->add_option("--python", flags->python,
                  "Python interpreter whose TensorFlow, PyTorch and JAX the results file records, "
                  "as `doctor --python` judges them (default: the first python3 or python on "
                  "PATH; none: skip)");
  sub->add_option("--seed", flags->seed, "Seed of the random inputs, 0 to 2^64-1 (default 42)");
  sub->add_option("-o,--output", flags->output,
                  "Results file (default results/<host>-<time>.json)");
  sub->add_option("--resume", flags->resume, "Continue an incomplete results file");
  sub->add_flag("--force", flags->force, "Overwrite an existing results file");
  sub->add_flag("--quiet", flags->quiet, "No progress and no summary");
  sub->add_flag("--dry-run", flags->dry_run,
                "Print the plan's point count and estimated seconds as JSON; measure nothing");
  sub->add_flag("--assume-usable-gpu", flags->assume_usable_gpu,
                "With --dry-run: plan as on a machine whose GPUs are usable (gpu:0 standing for "
                "every GPU of auto and all), to size another node's job");
  sub->allow_extras();  // --benchmark_* flags go on to Google Benchmark
  sub->callback([&action, flags, sub] {
    for (const auto& extra : sub->remaining()) {
      if (extra.rfind("--benchmark_", 0) != 0) throw unknown_argument(extra);
      flags->benchmark_args.push_back(extra);
    }
    action = [flags, sub] {
      return report_input_errors("run", [&] { return run_main(*flags, *sub); });
    };
  });
}

}  // namespace lb::cli
