#pragma once
// Where a batch scheduler placed this process: Slurm's job, array task, node and partition, and
// the fleet target (scripts/slurm/fleet.sh) being measured. Recorded in results files and in
// `doctor --json`, so a report can say "partition h100, node gpu017". Pure: the environment
// comes in through `lookup`.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace lb {

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// {"name": "slurm", "job_id", "array_job_id", "array_task_id", "node", "partition", "target"}
// (strings, null where the variable is unset), or null outside a Slurm job (no SLURM_JOB_ID).
nlohmann::json slurm_placement(const EnvLookup& lookup);

// The same, read from this process's environment.
nlohmann::json slurm_placement();

}  // namespace lb
