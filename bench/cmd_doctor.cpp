// `layerbench doctor`: why the GPU is (not) usable, and how to fix it.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "bench/device_choice.hpp"
#include "bench/python_probe.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/frameworks.hpp"
#include "harness/doctor/probe.hpp"
#include "harness/doctor/report.hpp"
#include "harness/machine/slurm_placement.hpp"

namespace lb::cli {
namespace {

struct DoctorOptions {
  bool json = false;
  std::string for_spec;
  std::string python;  // empty: the first python3/python on PATH; "none": skip
  double import_timeout_s = 60;
  std::string cpu_peak = "measure";  // or "skip"
};

// The installed package of the target's framework and release ("2.21" matches 2.21.0).
const doctor::FrameworkProbe* installed_target(const std::optional<doctor::PythonProbe>& probe,
                                               const doctor::FrameworkTarget& target) {
  if (!probe) return nullptr;
  for (const auto& f : probe->frameworks)
    if (f.name == target.framework && f.status == "ok" &&
        (f.version == target.version || f.version.rfind(target.version + ".", 0) == 0))
      return &f;
  return nullptr;
}

nlohmann::json devices_json(const std::vector<DeviceVerdict>& verdicts) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceVerdict& v : verdicts)
    devices.push_back(
        {{"kind", v.kind}, {"usable", v.usable}, {"verdict", v.verdict}, {"fixes", v.fixes}});
  return devices;
}

// Each device kind's verdict that the NVIDIA stack's, printed above, has not already given.
void print_other_devices(std::ostream& out, const std::vector<DeviceVerdict>& verdicts,
                         const doctor::Diagnosis& diagnosis) {
  for (const DeviceVerdict& v : verdicts) {
    if (v.verdict == diagnosis.verdict) continue;
    out << "\n" << v.verdict << "\n";
    for (std::size_t i = 0; i < v.fixes.size(); ++i)
      out << (i == 0 ? "How to fix:\n" : "") << "  " << i + 1 << ". " << v.fixes[i] << "\n";
  }
}

int run_doctor(const DoctorOptions& options) {
  const doctor::Facts facts = doctor::load_facts();
  std::string python;
  try {
    python = resolve_python(options.python);
  } catch (const std::invalid_argument& e) {
    std::cerr << "layerbench doctor: --python: " << e.what() << "\n";
    return exit_usage;
  }
  std::optional<doctor::FrameworkTarget> target;
  if (!options.for_spec.empty()) {
    try {
      target = doctor::parse_framework_target(options.for_spec);
    } catch (const std::invalid_argument& e) {
      std::cerr << "layerbench doctor: --for: " << e.what() << "\n";
      return exit_usage;
    }
  }
  PythonProbeOutcome frameworks;
  if (!python.empty()) frameworks = run_python_probe(python, options.import_timeout_s);
  // --for is answered by the installed package where it is that release, else by the facts.
  const doctor::FrameworkProbe* installed =
      target ? installed_target(frameworks.probe, *target) : nullptr;
  if (target && !installed) {
    try {
      doctor::tested_build(facts, *target);  // an unknown version is a usage error, before probing
    } catch (const std::invalid_argument& e) {
      std::cerr << "layerbench doctor: --for: " << e.what() << "\n";
      return exit_usage;
    }
  }

  doctor::ProbeOptions probe_options;
  probe_options.measure_cpu_peak = options.cpu_peak == "measure";
  const doctor::Snapshot snapshot = probe_machine(probe_options);
  const doctor::Diagnosis diagnosis = doctor::diagnose(snapshot, facts);
  const std::vector<DeviceVerdict> devices =
      accelerator_verdicts(backend_usability(snapshot, facts), diagnosis);
  std::optional<doctor::FrameworkCheck> framework;
  if (target && !installed) framework = doctor::check_framework(snapshot, facts, *target);
  const std::vector<doctor::FrameworkVerdict> verdicts =
      frameworks.probe ? doctor::judge_frameworks(*frameworks.probe, snapshot, facts)
                       : std::vector<doctor::FrameworkVerdict>{};

  if (options.json) {
    nlohmann::json report = doctor::to_json(snapshot, diagnosis, framework);
    report["devices"] = devices_json(devices);
    report["scheduler"] = slurm_placement();  // a fleet's verdict names its job and node
    report["python"] = python.empty() ? nlohmann::json(nullptr) : nlohmann::json(python);
    report["python_probe_error"] =
        frameworks.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(frameworks.error);
    report["frameworks"] = frameworks.probe ? doctor::frameworks_json(*frameworks.probe, verdicts)
                                            : nlohmann::json::array();
    // An environment value that is not UTF-8 is shown with U+FFFD, not a type_error.
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    doctor::print_text(std::cout, snapshot, diagnosis, framework);
    print_other_devices(std::cout, devices, diagnosis);
    if (frameworks.probe) doctor::print_frameworks(std::cout, *frameworks.probe, verdicts);
    if (!frameworks.error.empty()) std::cout << "\nPython frameworks: " << frameworks.error << "\n";
    if (python.empty())
      std::cout << "\nPython frameworks: not checked ("
                << (options.python == kNoPython ? "--python none" : "no python3 or python on PATH")
                << ")\n";
    if (installed)
      std::cout << "\n--for " << options.for_spec << ": answered from the installed package "
                << installed->package << " " << installed->version << " (above)\n";
  }
  // Exit 0 only when layerbench has a GPU and every installed framework can use it too.
  const bool frameworks_ready =
      frameworks.error.empty() &&
      std::all_of(verdicts.begin(), verdicts.end(), [](const auto& v) { return v.gpu_usable; });
  return diagnosis.gpu_usable && frameworks_ready ? exit_ok : exit_failed;
}

}  // namespace

void add_doctor(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "doctor",
      "Inspect CPU, NVIDIA driver, CUDA, cuDNN and cuBLAS; say why no GPU is usable and how to fix "
      "it, for layerbench and for the TensorFlow, PyTorch and JAX of --python. Exit code 0: a GPU "
      "is "
      "ready for both, 1: only the CPU can be used, 2: usage error");
  auto options = std::make_shared<DoctorOptions>();
  sub->add_flag("--json", options->json, "Print the report as one JSON object");
  sub->add_option("--for", options->for_spec,
                  "Check the installed CUDA and cuDNN against a framework's tested build, e.g. "
                  "tensorflow==2.15; answered from the installed package when it is that release")
      ->check(CLI::Validator(
          [](const std::string& value) {
            return value.empty() ? std::string("empty value (e.g. tensorflow==2.15)")
                                 : std::string();
          },
          "FRAMEWORK==VERSION"));
  sub->add_option("--python", options->python,
                  "Python interpreter whose TensorFlow, PyTorch and JAX to check (default: the "
                  "first python3 or python on PATH; none: skip them)");
  sub->add_option("--import-timeout", options->import_timeout_s,
                  "Seconds each framework's import may take before it counts as hanging")
      ->check(CLI::Range(1.0, 3600.0));
  sub->add_option("--cpu-peak", options->cpu_peak,
                  "measure (default: the CPU's FP32 FMA peak, about a second) or skip")
      ->check(CLI::IsMember({"measure", "skip"}));
  sub->callback([&action, options] { action = [options] { return run_doctor(*options); }; });
}

}  // namespace lb::cli
