#pragma once
// --device and --backend: which devices and backends a run asks for, and the backends made for
// them once the doctor has said which GPUs are usable.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/run_context.hpp"
#include "harness/backend.hpp"
#include "harness/backend_descriptor.hpp"
#include "harness/plan/plan.hpp"

namespace lb::cli {

// --device: auto (the CPU and every usable GPU), cpu, gpu (= gpu:0), gpu:N, all.
struct DeviceChoice {
  bool cpu = false;
  std::vector<int> gpus;
  bool all_gpus = false;
  bool gpu_required = false;  // a GPU was asked for by name: its absence is an error (exit 1)
};
// Throws InputError naming `label` (the flag or settings field) for anything else.
DeviceChoice parse_device(const std::string& text, std::string_view label = "--device");

// --backend: the registered backends named, in the registry's order; every one when empty.
std::vector<const BackendDescriptor*> parse_backends(const std::string& text,
                                                     std::string_view label = "--backend");

// Throws InputError when none of `backends` serves a device of `choice` (--backend cuda with
// --device cpu), naming both settings by `device_label` and `backend_label`.
void check_backends_serve(const DeviceChoice& choice,
                          const std::vector<const BackendDescriptor*>& backends,
                          std::string_view device_label, std::string_view backend_label);

// The backends a file written before --backend existed measured with: each device's original
// primary one (BackendDescriptor::primary), among those of this build.
std::string original_backends();

// The devices --device asks for and a backend for each, made only on the devices its usability
// check lists. The doctor is asked before any GPU is touched, so an unusable one is explained
// (on stderr; `quiet` drops the note that only the CPU points run).
struct ChosenDevices {
  RunContext machine;
  std::vector<DeviceTarget> targets;
  std::map<std::string, std::unique_ptr<Backend>> backends;  // by keyed_device(id, backend)
  bool gpu_unusable = false;  // a GPU asked for by name cannot be used (exit 1)
};
ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors, int threads,
                             const BackendOptionValues& backend_options, bool quiet,
                             const std::string& python);  // the interpreter the doctor probes

// The GPUs as the run sees them, from each registered GPU backend's own usability check
// (BackendDescriptor::usability): a GPU is usable when a backend can run on it.
struct GpuVerdict {
  std::vector<int> usable;         // ascending
  std::string verdict;             // one line: "GPU ready: ..." or "No usable GPU: <reason>"
  std::vector<std::string> fixes;  // from the backends that can use no GPU
};
// `usability`: each backend's check of this machine, by name. With several GPU backends each
// verdict is named ("cuda: GPU ready: ..."); with none, the doctor's `diagnosis` says why.
GpuVerdict gpu_verdict(const std::vector<const BackendDescriptor*>& registered,
                       const std::map<std::string, DeviceUsability>& usability,
                       const doctor::Diagnosis& diagnosis);
// The registry's backends on the probed machine.
GpuVerdict gpu_verdict(const RunContext& machine);

// The GPUs a run measures on: those --device names among the usable ones. `run` and
// `run --dry-run` both decide with this, so a dry run plans no point of a GPU the run would
// leave out. With no usable GPU: none; a GPU asked for by name sets `gpu_unusable` and the
// verdict and fixes go to stderr (the run exits 1), otherwise a note says only the CPU points
// run (dropped when `quiet`). A gpu:N the verdict does not list is an InputError.
std::vector<int> gpus_to_run(const DeviceChoice& choice, const GpuVerdict& gpus, bool quiet,
                             bool& gpu_unusable);

// A verdict for a machine this one is not: the GPUs --device names usable, and gpu:0 standing
// for "every GPU" (auto, all), since a scheduler, not this host, knows a node's count. For
// `run --dry-run --assume-usable-gpu`, which sizes other nodes' jobs.
GpuVerdict assumed_usable_gpus(const DeviceChoice& choice);

// --dry-run's devices, no backend made for a GPU: the CPU backends --device asks for and the GPU
// backends on `gpus` (as gpus_to_run chose them). Without --backend, a build with no GPU backend
// still plans GPU points, keyed as the CUDA backend's are (no "@backend"): the nodes that run
// them have it.
std::vector<DeviceTarget> dry_run_targets(const DeviceChoice& choice,
                                          const std::vector<const BackendDescriptor*>& backends,
                                          const std::vector<int>& gpus);

}  // namespace lb::cli
