#pragma once
// --device and --backend: which devices and backends a run asks for, and the backends made for
// them once the doctor has said which devices are usable.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/run_context.hpp"
#include "harness/api/backend.hpp"
#include "harness/api/backend_descriptor.hpp"
#include "harness/api/device_id.hpp"
#include "harness/plan/plan.hpp"

namespace lb::cli {

// The device kinds --device may name: the CPU, GPUs (named even by a build without a GPU backend,
// so the doctor explains their absence) and any kind a registered backend brings.
std::vector<std::string> device_kinds();

// --device: auto (the CPU and every usable device of every other kind), cpu, <kind> (=
// <kind>:0), <kind>:N, all.
struct DeviceChoice {
  bool cpu = false;
  bool every_accelerator = false;  // auto, all: every usable device that is not the CPU
  std::optional<DeviceId> named;   // a device other than the CPU asked for by id
  bool required = false;           // all, or a device named: none usable is an error (exit 1)
  bool asks_for(std::string_view kind) const {
    return kind == cpu_kind ? cpu : every_accelerator || (named && named->kind == kind);
  }
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
// check lists. The doctor is asked before any device is touched, so an unusable one is explained
// (on stderr; `quiet` drops the note of which points are left out).
struct ChosenDevices {
  RunContext machine;
  std::vector<DeviceTarget> targets;
  std::map<std::string, std::unique_ptr<Backend>> backends;  // by keyed_device(id, backend)
  bool device_unusable = false;  // a device asked for by name cannot be used (exit 1)
};
ChosenDevices choose_devices(const DeviceChoice& choice,
                             const std::vector<const BackendDescriptor*>& descriptors, int threads,
                             const BackendOptionValues& backend_options, bool quiet,
                             const std::string& python);  // the interpreter the doctor probes

// One device kind as the run sees it, from each registered backend of that kind's own usability
// check (BackendDescriptor::usability): a device is usable when a backend can run on it.
struct DeviceVerdict {
  std::string kind;                // "gpu", or a backend's kind of its own
  std::vector<int> usable;         // ascending
  std::string verdict;             // one line: "GPU ready: ..." or "No usable GPU: <reason>"
  std::vector<std::string> fixes;  // from the backends that can use no device of the kind
};
// `usability`: each backend's check of this machine, by name. With several backends of the kind
// each verdict is named ("cuda: GPU ready: ..."); a GPU with no GPU backend has the doctor's
// `diagnosis` say why.
DeviceVerdict device_verdict(std::string_view kind,
                             const std::vector<const BackendDescriptor*>& registered,
                             const std::map<std::string, DeviceUsability>& usability,
                             const doctor::Diagnosis& diagnosis);
// Every kind but the CPU's (device_kinds()) on the probed machine, from the registry's backends'
// `usability` (backend_usability) and, for GPUs without a backend, the doctor's `diagnosis`.
std::vector<DeviceVerdict> accelerator_verdicts(
    const std::map<std::string, DeviceUsability>& usability, const doctor::Diagnosis& diagnosis);

// The devices other than the CPU that a run measures on: those --device names among the usable
// ones. `run` and `run --dry-run` both decide with this, so a dry run plans no point on a device
// the run would leave out. A kind asked for with no usable device: when it was asked for by name
// (or by `all`), `unusable` is set and the verdict and fixes go to stderr (the run exits 1);
// otherwise a note says which points are left out (dropped when `quiet`). A device the verdict
// does not list is an InputError.
std::vector<DeviceId> accelerators_to_run(const DeviceChoice& choice,
                                          const std::vector<DeviceVerdict>& verdicts, bool quiet,
                                          bool& unusable);

// A verdict for a machine this one is not: the device --device names usable, and gpu:0 standing
// for "every GPU" (auto, all), since a scheduler, not this host, knows a node's count. For
// `run --dry-run --assume-usable-gpu`, which sizes other nodes' jobs.
std::vector<DeviceVerdict> assumed_usable(const DeviceChoice& choice);

// --dry-run's devices, no backend made for any but the CPU: the CPU backends --device asks for
// and the other backends on `accelerators` (as accelerators_to_run chose them). Without
// --backend, a build with no GPU backend still plans GPU points, keyed as the CUDA backend's are
// (no "@backend"): the nodes that run them have it.
std::vector<DeviceTarget> dry_run_targets(const DeviceChoice& choice,
                                          const std::vector<const BackendDescriptor*>& backends,
                                          const std::vector<DeviceId>& accelerators);

}  // namespace lb::cli
