#include "bench/device_choice.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>

#include "bench/backend_options.hpp"
#include "bench/backend_registry.hpp"
#include "harness/comma_list.hpp"
#include "harness/device_id.hpp"
#include "harness/input_error.hpp"
#include "harness/results/point.hpp"

namespace lb::cli {

DeviceChoice parse_device(const std::string& text, std::string_view label) {
  DeviceChoice d;
  if (text == "auto" || text == "all") {
    d.cpu = d.all_gpus = true;
    d.gpu_required = text == "all";
    return d;
  }
  const std::optional<DeviceId> id = parse_device_id(text);
  if (!id)
    throw InputError(std::string(label) + ": '" + text + "' is not cpu, gpu, gpu:N, all or auto");
  if (id->kind == DeviceKind::cpu) {
    d.cpu = true;
  } else {
    d.gpus = {id->index};
    d.gpu_required = true;
  }
  return d;
}

std::vector<const BackendDescriptor*> parse_backends(const std::string& text,
                                                     std::string_view label) {
  const auto& all = backend_descriptors();
  if (text.empty()) return all;
  std::string known;
  for (const BackendDescriptor* d : all) known += (known.empty() ? "" : ", ") + d->name;
  std::set<std::string, std::less<>> wanted;
  for (std::string_view item : split_comma_list(text, label)) {
    if (std::none_of(all.begin(), all.end(), [&](const auto* d) { return d->name == item; }))
      throw InputError(std::string(label) + ": unknown backend '" + std::string(item) +
                       "'; known in this build: " + known);
    wanted.emplace(item);
  }
  std::vector<const BackendDescriptor*> chosen;
  for (const BackendDescriptor* d : all)
    if (wanted.count(d->name)) chosen.push_back(d);
  return chosen;
}

void check_backends_serve(const DeviceChoice& choice,
                          const std::vector<const BackendDescriptor*>& backends,
                          std::string_view device_label, std::string_view backend_label) {
  const bool gpus = choice.all_gpus || !choice.gpus.empty();
  const auto serves = [&](const BackendDescriptor* d) {
    return d->device_kind == DeviceKind::cpu ? choice.cpu : gpus;
  };
  if (std::any_of(backends.begin(), backends.end(), serves)) return;
  std::string chosen, others;
  for (const BackendDescriptor* d : backends) chosen += (chosen.empty() ? "" : ",") + d->name;
  for (const BackendDescriptor* d : backend_descriptors())
    if (serves(d)) others += (others.empty() ? "" : ", ") + d->name;
  const std::string asked = choice.cpu ? "the CPU" : "a GPU";
  throw InputError(std::string(backend_label) + " " + chosen + ": runs on " +
                   (choice.cpu ? "GPUs" : "the CPU") + " only, and " + std::string(device_label) +
                   " asks for " + asked + " alone, so there is nothing to measure; " +
                   (others.empty() ? "this build has no backend for " + asked
                                   : "choose a backend for " + asked + " (" + others + ")") +
                   " or another device");
}

std::string original_backends() {
  std::string names;
  for (const BackendDescriptor* d : backend_descriptors())
    if (d->primary) names += (names.empty() ? "" : ",") + d->name;
  return names;
}

std::vector<int> gpus_to_run(const DeviceChoice& choice, const doctor::Diagnosis& diagnosis,
                             bool quiet, bool& gpu_unusable) {
  if (choice.gpus.empty() && !choice.all_gpus) return {};
  if (!diagnosis.gpu_usable) {
    if (choice.gpu_required) {
      std::cerr << diagnosis.verdict << "\n";
      for (const auto& fix : diagnosis.fixes) std::cerr << "  How to fix: " << fix << "\n";
      gpu_unusable = true;
    } else if (!quiet) {
      std::cerr << "layerbench: " << diagnosis.verdict << " (CPU points only)\n";
    }
    return {};
  }
  if (choice.all_gpus) return diagnosis.usable_gpus;
  std::vector<int> indices;
  for (int i : choice.gpus) {
    if (std::find(diagnosis.usable_gpus.begin(), diagnosis.usable_gpus.end(), i) ==
        diagnosis.usable_gpus.end())
      throw InputError("--device: " + to_string(DeviceId{DeviceKind::gpu, i}) +
                       " is not a usable GPU here (" + diagnosis.verdict + ")");
    indices.push_back(i);
  }
  return indices;
}

doctor::Diagnosis assumed_usable_gpus(const DeviceChoice& choice) {
  doctor::Diagnosis assumed;
  assumed.gpu_usable = true;
  assumed.usable_gpus = choice.gpus;
  if (choice.all_gpus) assumed.usable_gpus.push_back(0);
  assumed.verdict = "GPU assumed usable (--assume-usable-gpu)";
  return assumed;
}

ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors, int threads,
                             const BackendOptionValues& backend_options, bool quiet,
                             const std::string& python) {
  ChosenDevices chosen;
  chosen.machine = probe_run_context(python);
  const std::vector<int> gpu_indices =
      gpus_to_run(choice, chosen.machine.diagnosis, quiet, chosen.gpu_unusable);

  bool gpu_backend_built = false;
  for (const BackendDescriptor* descriptor : descriptors) {
    if (descriptor->device_kind == DeviceKind::cpu && choice.cpu) {
      auto cpu = descriptor->make(0, threads, options_of(*descriptor, backend_options));
      chosen.targets.push_back({cpu->device(), false, descriptor->name});
      chosen.backends[keyed_device(cpu->device(), descriptor->name)] = std::move(cpu);
    }
    if (descriptor->device_kind != DeviceKind::gpu) continue;
    gpu_backend_built = true;
    for (int index : gpu_indices) {
      auto gpu = descriptor->make(index, threads, options_of(*descriptor, backend_options));
      chosen.targets.push_back({gpu->device(), true, descriptor->name});
      chosen.backends[keyed_device(gpu->device(), descriptor->name)] = std::move(gpu);
    }
  }
  if (!gpu_indices.empty() && !gpu_backend_built)
    throw std::runtime_error("this layerbench was built without CUDA: no GPU backend");
  return chosen;
}

std::vector<DeviceTarget> dry_run_targets(const DeviceChoice& choice,
                                          const std::vector<const BackendDescriptor*>& backends,
                                          const std::vector<int>& gpus) {
  std::vector<DeviceTarget> devices;
  std::vector<std::string> gpu_backends;
  for (const BackendDescriptor* d : backends) {
    if (d->device_kind == DeviceKind::cpu && choice.cpu)
      devices.push_back({to_string(DeviceId{DeviceKind::cpu, 0}), false, d->name});
    if (d->device_kind == DeviceKind::gpu) gpu_backends.push_back(d->name);
  }
  const bool every_backend = backends.size() == backend_descriptors().size();
  if (gpu_backends.empty() && every_backend) gpu_backends.push_back("");
  for (int i : gpus)
    for (const auto& backend : gpu_backends)
      devices.push_back({to_string(DeviceId{DeviceKind::gpu, i}), true, backend});
  return devices;
}

}  // namespace lb::cli
