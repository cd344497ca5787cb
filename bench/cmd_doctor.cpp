// `layerbench doctor`: why the GPU is (not) usable, and how to fix it.
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/probe.hpp"
#include "harness/doctor/report.hpp"
#include "harness/slurm_placement.hpp"

namespace lb::cli {
namespace {

struct DoctorOptions {
  bool json = false;
  std::string for_spec;
};

int run_doctor(const DoctorOptions& options) {
  const doctor::Facts facts = doctor::load_facts();
  std::optional<doctor::FrameworkTarget> target;
  if (!options.for_spec.empty()) {
    try {
      target = doctor::parse_framework_target(options.for_spec);
      doctor::tested_build(facts, *target);  // an unknown version is a usage error, before probing
    } catch (const std::invalid_argument& e) {
      std::cerr << "layerbench doctor: --for: " << e.what() << "\n";
      return exit_usage;
    }
  }

  doctor::ProbeOptions probe_options;
  probe_options.measure_cpu_peak = true;
  const doctor::Snapshot snapshot = probe_machine(probe_options);
  const doctor::Diagnosis diagnosis = doctor::diagnose(snapshot, facts);
  std::optional<doctor::FrameworkCheck> framework;
  if (target) framework = doctor::check_framework(snapshot, facts, *target);

  if (options.json) {
    nlohmann::json report = doctor::to_json(snapshot, diagnosis, framework);
    report["scheduler"] = slurm_placement();  // a fleet's verdict names its job and node
    std::cout << report.dump(2) << "\n";
  } else {
    doctor::print_text(std::cout, snapshot, diagnosis, framework);
  }
  return diagnosis.gpu_usable ? exit_ok : exit_failed;
}

}  // namespace

void add_doctor(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "doctor",
      "Inspect CPU, NVIDIA driver, CUDA, cuDNN and cuBLAS; say why no GPU is usable and how to fix "
      "it. Exit code 0: a GPU is ready, 1: only the CPU can be used, 2: usage error");
  auto options = std::make_shared<DoctorOptions>();
  sub->add_flag("--json", options->json, "Print the report as one JSON object");
  sub->add_option("--for", options->for_spec,
                  "Check the installed CUDA and cuDNN against a framework's tested build, e.g. "
                  "tensorflow==2.15");
  sub->callback([&action, options] { action = [options] { return run_doctor(*options); }; });
}

}  // namespace lb::cli
