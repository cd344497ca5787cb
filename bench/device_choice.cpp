#include "bench/device_choice.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

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

namespace {

bool lists(const std::vector<int>& indices, int index) {
  return std::find(indices.begin(), indices.end(), index) != indices.end();
}

bool lists_text(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

GpuVerdict without_gpu_backend(const doctor::Diagnosis& diagnosis) {
  GpuVerdict v;
  v.verdict =
      diagnosis.gpu_usable ? "No usable GPU: this build has no GPU backend" : diagnosis.verdict;
  v.fixes = diagnosis.fixes;
  return v;
}

}  // namespace

GpuVerdict gpu_verdict(const std::vector<const BackendDescriptor*>& registered,
                       const std::map<std::string, DeviceUsability>& usability,
                       const doctor::Diagnosis& diagnosis) {
  std::vector<std::pair<std::string, const DeviceUsability*>> gpu_backends;
  for (const BackendDescriptor* d : registered)
    if (const auto it = usability.find(d->name);
        d->device_kind == DeviceKind::gpu && it != usability.end())
      gpu_backends.emplace_back(d->name, &it->second);
  if (gpu_backends.empty()) return without_gpu_backend(diagnosis);
  GpuVerdict v;
  std::set<int> usable;
  for (const auto& [name, check] : gpu_backends) {
    usable.insert(check->usable.begin(), check->usable.end());
    const std::string named =
        gpu_backends.size() > 1 ? name + ": " + check->verdict : check->verdict;
    v.verdict += (v.verdict.empty() ? "" : "; ") + named;
    if (!check->usable.empty()) continue;
    for (const auto& fix : check->fixes)
      if (!lists_text(v.fixes, fix)) v.fixes.push_back(fix);
  }
  v.usable.assign(usable.begin(), usable.end());
  return v;
}

GpuVerdict gpu_verdict(const RunContext& machine) {
  return gpu_verdict(backend_descriptors(), machine.usability, machine.diagnosis);
}

std::vector<int> gpus_to_run(const DeviceChoice& choice, const GpuVerdict& gpus, bool quiet,
                             bool& gpu_unusable) {
  if (choice.gpus.empty() && !choice.all_gpus) return {};
  if (gpus.usable.empty()) {
    if (choice.gpu_required) {
      std::cerr << gpus.verdict << "\n";
      for (const auto& fix : gpus.fixes) std::cerr << "  How to fix: " << fix << "\n";
      gpu_unusable = true;
    } else if (!quiet) {
      std::cerr << "layerbench: " << gpus.verdict << " (CPU points only)\n";
    }
    return {};
  }
  if (choice.all_gpus) return gpus.usable;
  for (int i : choice.gpus)
    if (!lists(gpus.usable, i))
      throw InputError("--device: " + to_string(DeviceId{DeviceKind::gpu, i}) +
                       " is not a usable GPU here (" + gpus.verdict + ")");
  return choice.gpus;
}

GpuVerdict assumed_usable_gpus(const DeviceChoice& choice) {
  GpuVerdict assumed;
  assumed.usable = choice.gpus;
  if (choice.all_gpus) assumed.usable.push_back(0);
  assumed.verdict = "GPU assumed usable (--assume-usable-gpu)";
  return assumed;
}

ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors, int threads,
                             const BackendOptionValues& backend_options, bool quiet,
                             const std::string& python) {
  ChosenDevices chosen;
  chosen.machine = probe_run_context(python);
  const GpuVerdict gpus = gpu_verdict(chosen.machine);
  const std::vector<int> gpu_indices = gpus_to_run(choice, gpus, quiet, chosen.gpu_unusable);
  for (const BackendDescriptor* descriptor : descriptors) {
    const bool cpu = descriptor->device_kind == DeviceKind::cpu;
    const std::vector<int> asked =
        cpu ? (choice.cpu ? std::vector<int>{0} : std::vector<int>{}) : gpu_indices;
    const std::vector<int>& usable = chosen.machine.usability.at(descriptor->name).usable;
    for (int index : asked) {
      if (!lists(usable, index)) continue;  // another GPU backend's device
      auto backend = descriptor->make(index, threads, options_of(*descriptor, backend_options));
      chosen.targets.push_back({backend->device(), !cpu, descriptor->name});
      chosen.backends[keyed_device(backend->device(), descriptor->name)] = std::move(backend);
    }
  }
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
