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

// The backends a file written before --backend existed measured with: each device's original
// one (keyed_device, harness/results/point.hpp), among those of this build.
std::string original_backends();

// The devices --device asks for and a backend for each. The doctor is asked before any GPU is
// touched, so an unusable one is explained (on stderr; `quiet` drops the note that only the CPU
// points run).
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

// --dry-run plans without touching the machine: the devices --device names, one GPU (gpu:0)
// standing for "every GPU" (auto, all) since a scheduler, not this host, knows a node's count.
// Without --backend, a build with no GPU backend still plans GPU points, keyed as the CUDA
// backend's are (no "@backend"): the nodes that run them have it.
std::vector<DeviceTarget> dry_run_targets(const DeviceChoice& choice,
                                          const std::vector<const BackendDescriptor*>& backends);

}  // namespace lb::cli
