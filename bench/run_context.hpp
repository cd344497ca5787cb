#pragma once
// What `run` records about the machine: the doctor's snapshot and verdict (also used to say
// why a GPU is unusable), and the results file's context block.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/backend.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/snapshot.hpp"
#include "harness/results/results_file.hpp"

namespace lb::cli {

struct RunContext {
  doctor::Snapshot snapshot;
  doctor::Diagnosis diagnosis;
};

RunContext probe_run_context();

// The results file's "context" (reports/results-schema.md). Measures the CPU's FMA peak when
// the CPU is among the devices, so CPU points have a measured ceiling.
nlohmann::json context_json(const RunContext& machine,
                            const std::map<std::string, std::unique_ptr<Backend>>& backends,
                            std::uint64_t seed, bool warm, int threads);

// At the end of the run: reads the machine's state again into context.machine_state.end and
// prints the one warning when it was busy at the start or the end or a CPU point was contended.
void record_machine_state_at_end(ResultsWriter& writer, bool quiet);

// results/<host>-<UTC time>.json
std::string default_output_path();

// The command line as typed, recorded in every results file.
void set_command_line(int argc, char** argv);
const std::string& command_line();

}  // namespace lb::cli
