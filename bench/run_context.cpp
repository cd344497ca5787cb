#include "bench/run_context.hpp"

#include <cctype>
#include <iostream>
#include <new>

#include "bench/backend_registry.hpp"
#include "bench/python_probe.hpp"
#include "build_info.hpp"
#include "harness/api/device_id.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/frameworks.hpp"
#include "harness/machine/machine_state.hpp"
#include "harness/machine/rapl.hpp"
#include "harness/machine/slurm_placement.hpp"
#include "harness/measure/canary.hpp"
#include "harness/measure/cpu_bandwidth.hpp"
#include "harness/measure/cpu_peak.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/utf8.hpp"

namespace lb::cli {

namespace {
std::string& command_line_storage() {
  static std::string text;
  return text;
}

nlohmann::json facts_json(const Backend& backend) {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [k, v] : backend.context()) facts[k] = v;
  return facts;
}

// The triad's GB/s with the run's threads, or null (no memory roof) when its arrays do not fit.
nlohmann::json cpu_bandwidth(int threads) {
  CpuBandwidthOptions options;
  options.threads = threads;
  try {
    const CpuBandwidth bw = measure_cpu_bandwidth(options);
    return {{"value", bw.gbps}, {"source", "measured: " + bw.method}};
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// Whether the CPU points record their energy: the RAPL packages, or why not.
nlohmann::json cpu_energy_json() {
  const RaplPackages& rapl = cpu_rapl_packages("cpu");
  if (rapl.packages.empty()) return {{"source", "rapl"}, {"absent", rapl.absent}};
  nlohmann::json names = nlohmann::json::array();
  for (const auto& package : rapl.packages) names.push_back(package.name);
  return {{"source", "rapl"}, {"packages", names}};
}

// Without the roofs (--cpu-roofs skip) the record has no peaks and no bandwidth, as for a GPU
// missing from the datasheet.
nlohmann::json cpu_device(const RunContext& machine, const Backend& backend, int threads,
                          bool measure_roofs, DeviceLimits& limits) {
  nlohmann::json device = {{"id", backend.device()},
                           {"kind", "cpu"},
                           {"name", machine.snapshot.cpu.model},
                           {"backend", backend.name()},
                           {"facts", facts_json(backend)},
                           {"peaks", nlohmann::json::object()},
                           {"memory_bandwidth_gbps", nullptr},
                           {"energy", cpu_energy_json()}};
  if (!measure_roofs) return device;
  CpuPeakOptions options;
  options.threads = threads;
  const CpuPeak peak = measure_cpu_peak(options);
  limits.peak_tflops[Precision::fp32] = peak.gflops / 1e3;
  device["peaks"]["fp32"] = {{"tflops", peak.gflops / 1e3}, {"source", "measured: " + peak.method}};
  device["memory_bandwidth_gbps"] = cpu_bandwidth(threads);
  return device;
}

// The descriptor of the backend that made `backend` (their names are the same).
const BackendDescriptor* descriptor_of(const Backend& backend) {
  for (const BackendDescriptor* d : backend_descriptors())
    if (d->name == backend.name()) return d;
  return nullptr;
}

// A device other than the CPU: its name, peaks and bandwidth as its backend's descriptor reads
// them from the facts the backend recorded.
nlohmann::json accelerator_device(const Backend& backend, DeviceLimits& limits) {
  const DeviceId id = parse_device_id(backend.device()).value();
  const nlohmann::json facts = facts_json(backend);
  const BackendDescriptor* descriptor = descriptor_of(backend);
  const DeviceDescription described =
      descriptor && descriptor->describe ? descriptor->describe(facts) : DeviceDescription{};
  nlohmann::json d = {
      {"id", backend.device()},          {"kind", id.kind}, {"name", described.name},
      {"backend", backend.name()},       {"facts", facts},  {"peaks", nlohmann::json::object()},
      {"memory_bandwidth_gbps", nullptr}};
  if (facts.contains("memory_bytes"))
    limits.memory_bytes = std::stoull(facts.at("memory_bytes").get<std::string>());
  for (const auto& [precision, tflops] : described.peak_tflops) {
    d["peaks"][std::string(name(precision))] = {{"tflops", tflops}, {"source", described.source}};
    limits.peak_tflops[precision] = tflops;
  }
  if (described.memory_gbps)
    d["memory_bandwidth_gbps"] = {{"value", *described.memory_gbps}, {"source", described.source}};
  return d;
}
// The GPUs asked for their compute processes: each device record whose backend reads them, from
// the facts that backend recorded.
std::vector<GpuProcessQuery> gpu_process_queries(const nlohmann::json& devices) {
  std::vector<GpuProcessQuery> gpus;
  for (const auto& d : devices)
    for (const BackendDescriptor* backend : backend_descriptors())
      if (backend->gpu_processes && d.value("backend", "") == backend->name)
        gpus.push_back({d.at("id").get<std::string>(),
                        [facts = d.value("facts", nlohmann::json::object()), backend](
                            std::string& error) { return backend->gpu_processes(facts, error); }});
  return gpus;
}

// The CPU's compute threads: those of the backend its device record is made with; the
// processors when no CPU device.
int compute_threads(const std::map<std::string, std::unique_ptr<Backend>>& backends,
                    int processors) {
  for (const auto& [id, backend] : backends)
    if (parse_device_id(backend->device()).value().is_cpu())
      return std::max(1, backend->compute_threads());
  return processors;
}

// The same as a file recorded it, for a resumed file from before context.machine_state: the CPU
// record's "threads" fact.
int recorded_compute_threads(const nlohmann::json& devices, int processors) {
  for (const auto& d : devices) {
    const auto& facts = d.value("facts", nlohmann::json::object());
    if (d.value("kind", "") == "cpu" && facts.contains("threads"))
      return std::max(1, std::atoi(facts.at("threads").get<std::string>().c_str()));
  }
  return processors;
}

// context.machine_state at the start (reports/results-schema.md).
nlohmann::json machine_state_json(const nlohmann::json& devices,
                                  const std::map<std::string, std::unique_ptr<Backend>>& backends) {
  const int processors = std::max(1, platform::cpu_features().threads);
  const int threads = compute_threads(backends, processors);
  const auto governor = platform::cpu_frequency_governor();
  const auto huge_pages = platform::transparent_huge_page_mode();
  return {{"processors", processors},
          {"threads", threads},
          {"cpu_governor", governor ? nlohmann::json(*governor) : nullptr},
          {"transparent_huge_pages", huge_pages ? nlohmann::json(*huge_pages) : nullptr},
          {"start", to_json(read_machine(gpu_process_queries(devices)), processors, threads)}};
}

// A recorded reading back, for the warning: the other runnable count and the GPUs' others.
MachineReading reading_from_json(const nlohmann::json& j) {
  MachineReading r;
  if (j.contains("other_runnable") && j.at("other_runnable").is_number_integer())
    r.other_runnable = j.at("other_runnable").get<int>();
  // Held in a local: items() refers to its json, which a temporary would not outlive in the loop.
  const nlohmann::json gpus = j.value("gpus", nlohmann::json::object());
  for (const auto& [id, gpu] : gpus.items()) {
    std::vector<GpuProcess> others;
    for (const auto& p : gpu.value("other_processes", nlohmann::json::array()))
      others.push_back(
          {p.at("pid").get<unsigned>(),
           p.at("used_bytes").is_null()
               ? std::nullopt
               : std::optional<std::uint64_t>(p.at("used_bytes").get<std::uint64_t>())});
    r.gpu_others.emplace_back(id, others);
  }
  return r;
}
}  // namespace

void record_machine_state_at_end(ResultsWriter& writer, bool quiet) {
  const nlohmann::json& context = writer.context();
  const nlohmann::json devices = context.value("devices", nlohmann::json::array());
  const nlohmann::json state = context.value("machine_state", nlohmann::json::object());
  const int processors = state.value("processors", std::max(1, platform::cpu_features().threads));
  const int threads = state.value("threads", recorded_compute_threads(devices, processors));
  const MachineReading end = read_machine(gpu_process_queries(devices));
  int contended = 0;
  for (const auto& p : writer.points())
    if (p.timing && p.timing->contended) ++contended;
  const std::optional<MachineReading> start =
      state.contains("start") ? std::optional(reading_from_json(state.at("start"))) : std::nullopt;
  nlohmann::json recorded = state;
  recorded["end"] = to_json(end, processors, threads);
  const CanarySummary canary = machine_canary().summary();
  if (canary.readings > 0) recorded["canary"] = to_json(canary);
  writer.set_context("machine_state", std::move(recorded));
  if (canary.readings > 0 && !quiet) std::cerr << canary_text(canary) << "\n";
  if (auto warning = busy_warning(start, end, processors, threads, contended); warning && !quiet)
    std::cerr << *warning;
}

void set_command_line(int argc, char** argv) {
  std::string& text = command_line_storage();
  for (int i = 0; i < argc; ++i) {
    if (i) text += ' ';
    text += argv[i];
  }
}
const std::string& command_line() { return command_line_storage(); }

RunContext probe_run_context(const std::string& python) {
  RunContext c;
  const doctor::Facts facts = doctor::load_facts();
  c.snapshot = probe_machine();
  c.diagnosis = doctor::diagnose(c.snapshot, facts);
  c.usability = backend_usability(c.snapshot, facts);
  c.python = python;
  if (python.empty()) return c;
  // The doctor's default time limit per import: a framework that hangs costs a run a minute.
  const PythonProbeOutcome outcome = run_python_probe(python, 60);
  c.python_probe_error = outcome.error;
  if (outcome.probe)
    c.frameworks = doctor::frameworks_json(
        *outcome.probe, doctor::judge_frameworks(*outcome.probe, c.snapshot, facts));
  return c;
}

MachineRecord machine_record(const RunContext& machine,
                             const std::map<std::string, std::unique_ptr<Backend>>& backends,
                             std::uint64_t seed, bool warm, int threads, bool measure_cpu_roofs) {
  const auto& s = machine.snapshot;
  MachineRecord record;
  nlohmann::json libraries = nlohmann::json::object();
  nlohmann::json backend_roles = nlohmann::json::object();
  for (const BackendDescriptor* backend : backend_descriptors()) {
    for (const auto& [library, version] : backend->libraries(s)) libraries[library] = version;
    backend_roles[backend->name] = {
        {"device_type", backend->device_kind},
        {"primary", backend->primary},
        {"point_backends", backend->point_backends.empty() ? std::vector<std::string>{backend->name}
                                                           : backend->point_backends},
        {"library_names", backend->library_names}};
  }
  // One record per device, made with its first backend; any other backend on the same device
  // adds its facts to that record's "other_backends".
  nlohmann::json devices = nlohmann::json::array();
  std::map<std::string, std::size_t> record_of;
  for (const auto& [id, backend] : backends) {
    const auto [it, first] = record_of.emplace(backend->device(), devices.size());
    if (!first) {
      devices[it->second]["other_backends"][backend->name()] = facts_json(*backend);
      continue;
    }
    DeviceLimits& limits = record.limits[backend->device()];
    devices.push_back(parse_device_id(backend->device()).value().is_cpu()
                          ? cpu_device(machine, *backend, threads, measure_cpu_roofs, limits)
                          : accelerator_device(*backend, limits));
  }
  nlohmann::json state = machine_state_json(devices, backends);
  record.context = {{"machine_state", std::move(state)},
                    {"layerbench_version", build::version},
                    {"git_revision", build::git_revision},
                    {"build_type", build::build_type},
                    {"compiler", build::compiler},
                    {"host", utf8_or_replaced(platform::hostname())},
                    {"os", s.os},
                    {"command_line", utf8_or_replaced(command_line())},
                    {"seed", seed},
                    {"cache", warm ? "warm" : "cold"},
                    {"libraries", libraries},
                    {"backends", backend_roles},
                    {"devices", devices},
                    {"doctor",
                     {{"gpu_usable", machine.diagnosis.gpu_usable},
                      {"verdict", machine.diagnosis.verdict},
                      {"python", machine.python.empty() ? nlohmann::json(nullptr)
                                                        : nlohmann::json(machine.python)},
                      {"python_probe_error", machine.python_probe_error.empty()
                                                 ? nlohmann::json(nullptr)
                                                 : nlohmann::json(machine.python_probe_error)},
                      {"frameworks", machine.frameworks}}},
                    {"scheduler", slurm_placement()}};
  return record;
}

std::map<std::string, DeviceLimits> recorded_limits(const nlohmann::json& context) {
  std::map<std::string, DeviceLimits> limits;
  for (const auto& d : context.value("devices", nlohmann::json::array())) {
    DeviceLimits& l = limits[d.at("id").get<std::string>()];
    if (d.value("kind", "") != cpu_kind) {
      const nlohmann::json facts = d.value("facts", nlohmann::json::object());
      if (facts.contains("memory_bytes"))
        l.memory_bytes = std::stoull(facts.at("memory_bytes").get<std::string>());
    }
    const nlohmann::json peaks = d.value("peaks", nlohmann::json::object());
    for (const auto& [precision, peak] : peaks.items())
      if (auto p = parse_precision(precision)) l.peak_tflops[*p] = peak.at("tflops").get<double>();
  }
  return limits;
}

void cap_gpu_memory(std::map<std::string, DeviceLimits>& limits, double memory_limit_gb) {
  if (memory_limit_gb <= 0) return;
  for (auto& [id, l] : limits)
    if (const auto device = parse_device_id(id); device && !device->is_cpu())
      l.memory_bytes = static_cast<std::uint64_t>(memory_limit_gb * (1ull << 30));
}

// The host's name in a file name: letters, digits, '.', '-' and '_' kept, any other byte (a
// '/', a byte that is not UTF-8: Linux allows both in a host name) as '_'.
std::string default_output_path() {
  std::string host = platform::hostname();
  for (char& c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return "results/" + host + "-" + platform::utc_now("%Y%m%dT%H%M%SZ") + ".json";
}

}  // namespace lb::cli
