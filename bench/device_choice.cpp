#include "bench/device_choice.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "bench/backend_options.hpp"
#include "bench/backend_registry.hpp"
#include "harness/api/device_id.hpp"
#include "harness/results/point.hpp"
#include "harness/util/comma_list.hpp"
#include "harness/util/input_error.hpp"

namespace lb::cli {

std::vector<std::string> device_kinds() {
  std::vector<std::string> kinds = {std::string(cpu_kind), std::string(gpu_kind)};
  for (const BackendDescriptor* d : backend_descriptors())
    if (std::find(kinds.begin(), kinds.end(), d->device_kind) == kinds.end())
      kinds.push_back(d->device_kind);
  return kinds;
}

DeviceChoice parse_device(const std::string& text, std::string_view label) {
  DeviceChoice d;
  if (text == "auto" || text == "all") {
    d.cpu = d.every_accelerator = true;
    d.required = text == "all";
    return d;
  }
  const std::vector<std::string> kinds = device_kinds();
  const std::optional<DeviceId> id = parse_device_id(text);
  // PyTorch's name for the GPU, the one users type first.
  if (id && id->kind == "cuda" && std::find(kinds.begin(), kinds.end(), "cuda") == kinds.end())
    throw InputError(std::string(label) + ": '" + text + "': the GPU kind is gpu (" +
                     std::string(gpu_kind) + text.substr(4) + ")");
  if (!id || std::find(kinds.begin(), kinds.end(), id->kind) == kinds.end()) {
    std::string known;
    for (const std::string& kind : kinds)
      known += kind == cpu_kind ? kind + ", " : kind + ", " + kind + ":N, ";
    throw InputError(std::string(label) + ": '" + text + "' is not " + known + "all or auto");
  }
  if (id->is_cpu()) {
    d.cpu = true;
  } else {
    d.named = id;
    d.required = true;
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

namespace {

// How messages name a kind's devices: "the CPU", "a GPU", "a test_accelerator device".
std::string one_of(std::string_view kind) {
  if (kind == cpu_kind) return "the CPU";
  if (kind == gpu_kind) return "a GPU";
  return "a " + std::string(kind) + " device";
}
std::string all_of(std::string_view kind) {
  if (kind == cpu_kind) return "the CPU";
  if (kind == gpu_kind) return "GPUs";
  return std::string(kind) + " devices";
}

}  // namespace

void check_backends_serve(const DeviceChoice& choice,
                          const std::vector<const BackendDescriptor*>& backends,
                          std::string_view device_label, std::string_view backend_label) {
  const auto serves = [&](const BackendDescriptor* d) { return choice.asks_for(d->device_kind); };
  if (std::any_of(backends.begin(), backends.end(), serves)) return;
  std::string chosen, runs_on, others;
  for (const BackendDescriptor* d : backends) {
    chosen += (chosen.empty() ? "" : ",") + d->name;
    if (runs_on.find(all_of(d->device_kind)) == std::string::npos)
      runs_on += (runs_on.empty() ? "" : " and ") + all_of(d->device_kind);
  }
  for (const BackendDescriptor* d : backend_descriptors())
    if (serves(d)) others += (others.empty() ? "" : ", ") + d->name;
  // Only a choice of one device kind can leave every backend out: the CPU, or one named device.
  const std::string asked = choice.cpu ? one_of(cpu_kind) : one_of(choice.named->kind);
  throw InputError(std::string(backend_label) + " " + chosen + ": runs on " + runs_on +
                   " only, and " + std::string(device_label) + " asks for " + asked +
                   " alone, so there is nothing to measure; " +
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

// "GPU" in a verdict's words, the kind's own name for any other.
std::string title(std::string_view kind) { return kind == gpu_kind ? "GPU" : std::string(kind); }

}  // namespace

DeviceVerdict device_verdict(std::string_view kind,
                             const std::vector<const BackendDescriptor*>& registered,
                             const std::map<std::string, DeviceUsability>& usability,
                             const doctor::Diagnosis& diagnosis) {
  std::vector<std::pair<std::string, const DeviceUsability*>> of_kind;
  for (const BackendDescriptor* d : registered)
    if (const auto it = usability.find(d->name); d->device_kind == kind && it != usability.end())
      of_kind.emplace_back(d->name, &it->second);
  DeviceVerdict v;
  v.kind = std::string(kind);
  if (of_kind.empty()) {
    const bool doctor_says = kind == gpu_kind && !diagnosis.gpu_usable;
    v.verdict = doctor_says ? diagnosis.verdict
                            : "No usable " + title(kind) + ": this build has no " + title(kind) +
                                  " backend";
    if (doctor_says) v.fixes = diagnosis.fixes;
    return v;
  }
  std::set<int> usable;
  for (const auto& [name, check] : of_kind) {
    usable.insert(check->usable.begin(), check->usable.end());
    const std::string named = of_kind.size() > 1 ? name + ": " + check->verdict : check->verdict;
    v.verdict += (v.verdict.empty() ? "" : "; ") + named;
    if (!check->usable.empty()) continue;
    for (const auto& fix : check->fixes)
      if (!lists_text(v.fixes, fix)) v.fixes.push_back(fix);
  }
  v.usable.assign(usable.begin(), usable.end());
  return v;
}

std::vector<DeviceVerdict> accelerator_verdicts(
    const std::map<std::string, DeviceUsability>& usability, const doctor::Diagnosis& diagnosis) {
  std::vector<DeviceVerdict> verdicts;
  for (const std::string& kind : device_kinds())
    if (kind != cpu_kind)
      verdicts.push_back(device_verdict(kind, backend_descriptors(), usability, diagnosis));
  return verdicts;
}

std::vector<DeviceId> accelerators_to_run(const DeviceChoice& choice,
                                          const std::vector<DeviceVerdict>& verdicts, bool quiet,
                                          bool& unusable) {
  std::vector<DeviceId> chosen;
  std::vector<const DeviceVerdict*> left_out;
  for (const DeviceVerdict& v : verdicts) {
    if (!choice.asks_for(v.kind)) continue;
    if (v.usable.empty()) {
      if (choice.required) {
        std::cerr << v.verdict << "\n";
        for (const auto& fix : v.fixes) std::cerr << "  How to fix: " << fix << "\n";
        unusable = true;
      } else {
        left_out.push_back(&v);
      }
      continue;
    }
    if (choice.every_accelerator) {
      for (int i : v.usable) chosen.push_back({v.kind, i});
      continue;
    }
    if (!lists(v.usable, choice.named->index))
      throw InputError("--device: " + to_string(*choice.named) + " is not a usable " +
                       title(v.kind) + " here (" + v.verdict + ")");
    chosen.push_back(*choice.named);
  }
  if (!quiet)
    for (const DeviceVerdict* v : left_out)
      std::cerr << "layerbench: " << v->verdict
                << (chosen.empty() ? " (CPU points only)" : " (no " + title(v->kind) + " points)")
                << "\n";
  return chosen;
}

std::vector<DeviceVerdict> assumed_usable(const DeviceChoice& choice) {
  DeviceVerdict assumed;
  assumed.kind = choice.named ? choice.named->kind : std::string(gpu_kind);
  if (choice.named) assumed.usable = {choice.named->index};
  if (choice.every_accelerator) assumed.usable = {0};
  assumed.verdict = title(assumed.kind) + " assumed usable (--assume-usable-gpu)";
  return {assumed};
}

ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors, int threads,
                             const BackendOptionValues& backend_options, bool quiet,
                             const std::string& python) {
  ChosenDevices chosen;
  chosen.machine = probe_run_context(python);
  const std::vector<DeviceId> accelerators = accelerators_to_run(
      choice, accelerator_verdicts(chosen.machine.usability, chosen.machine.diagnosis), quiet,
      chosen.device_unusable);
  for (const BackendDescriptor* descriptor : descriptors) {
    const bool cpu = descriptor->device_kind == cpu_kind;
    std::vector<int> asked;
    if (cpu && choice.cpu) asked.push_back(0);
    for (const DeviceId& id : accelerators)
      if (id.kind == descriptor->device_kind) asked.push_back(id.index);
    const std::vector<int>& usable = chosen.machine.usability.at(descriptor->name).usable;
    for (int index : asked) {
      if (!lists(usable, index)) continue;  // another backend's device
      auto backend = descriptor->make(index, threads, options_of(*descriptor, backend_options));
      chosen.targets.push_back({backend->device(), !cpu, descriptor->name});
      chosen.backends[keyed_device(backend->device(), descriptor->name)] = std::move(backend);
    }
  }
  return chosen;
}

std::vector<DeviceTarget> dry_run_targets(const DeviceChoice& choice,
                                          const std::vector<const BackendDescriptor*>& backends,
                                          const std::vector<DeviceId>& accelerators) {
  std::vector<DeviceTarget> devices;
  for (const BackendDescriptor* d : backends)
    if (d->device_kind == cpu_kind && choice.cpu)
      devices.push_back({std::string(cpu_kind), false, d->name});
  const bool every_backend = backends.size() == backend_descriptors().size();
  for (const DeviceId& id : accelerators) {
    std::vector<std::string> of_kind;
    for (const BackendDescriptor* d : backends)
      if (d->device_kind == id.kind) of_kind.push_back(d->name);
    if (of_kind.empty() && every_backend && id.kind == gpu_kind) of_kind.push_back("");
    for (const auto& backend : of_kind) devices.push_back({to_string(id), true, backend});
  }
  return devices;
}

}  // namespace lb::cli
