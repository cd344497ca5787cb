#pragma once
// What `run` records about the machine: the doctor's snapshot and verdict (also used to say
// why a GPU is unusable), and the results file's context block.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/api/backend.hpp"
#include "harness/api/backend_descriptor.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/snapshot.hpp"
#include "harness/results/aggregate.hpp"
#include "harness/results/results_file.hpp"

namespace lb::cli {

struct RunContext {
  doctor::Snapshot snapshot;
  doctor::Diagnosis diagnosis;
  // Each registered backend's check of its devices (BackendDescriptor::usability), by name.
  std::map<std::string, DeviceUsability> usability;
  std::string python;              // the interpreter whose frameworks were probed; empty: none
  std::string python_probe_error;  // why its probe gave no answer
  nlohmann::json frameworks = nlohmann::json::array();  // as `doctor --json` lists them
};

// `python` as resolve_python (bench/python_probe.hpp) found it; empty skips the frameworks.
RunContext probe_run_context(const std::string& python);

// The results file's "context" (reports/results-schema.md), and the same devices' peaks and
// memory for the model sums. Measures the CPU's FMA peak when the CPU is among the devices, so
// CPU points have a measured ceiling.
struct MachineRecord {
  nlohmann::json context;
  std::map<std::string, DeviceLimits> limits;  // by device id
};
MachineRecord machine_record(const RunContext& machine,
                             const std::map<std::string, std::unique_ptr<Backend>>& backends,
                             std::uint64_t seed, bool warm, int threads, bool measure_cpu_roofs);

// The limits a results file's context recorded (a resumed run sums with the peaks it measured).
std::map<std::string, DeviceLimits> recorded_limits(const nlohmann::json& context);

// --memory-limit: every GPU behaves as if it had this many GiB (0: its own).
void cap_gpu_memory(std::map<std::string, DeviceLimits>& limits, double memory_limit_gb);

// At the end of the run: reads the machine's state again into context.machine_state.end and
// prints the one warning when it was busy at the start or the end or a CPU point was contended.
void record_machine_state_at_end(ResultsWriter& writer, bool quiet);

// results/<host>-<UTC time>.json, the host's name made safe for a file name
std::string default_output_path();

// The command line as typed, recorded in every results file.
void set_command_line(int argc, char** argv);
const std::string& command_line();

}  // namespace lb::cli
