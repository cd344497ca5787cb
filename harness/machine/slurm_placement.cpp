#include "harness/machine/slurm_placement.hpp"

#include "harness/os/platform.hpp"

namespace lb {

nlohmann::json slurm_placement(const EnvLookup& lookup) {
  const auto value = [&](const char* name) -> nlohmann::json {
    const auto v = lookup(name);
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  if (!lookup("SLURM_JOB_ID")) return nullptr;
  // Variables as sbatch(1) documents them ("OUTPUT ENVIRONMENT VARIABLES"); the target is set
  // by the fleet's job script.
  return {{"name", "slurm"},
          {"job_id", value("SLURM_JOB_ID")},
          {"array_job_id", value("SLURM_ARRAY_JOB_ID")},
          {"array_task_id", value("SLURM_ARRAY_TASK_ID")},
          {"node", value("SLURMD_NODENAME")},
          {"partition", value("SLURM_JOB_PARTITION")},
          {"target", value("LAYERBENCH_FLEET_TARGET")}};
}

nlohmann::json slurm_placement() { return slurm_placement(platform::getenv_opt); }

}  // namespace lb
