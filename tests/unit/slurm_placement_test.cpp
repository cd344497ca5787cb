#include "harness/machine/slurm_placement.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace lb {
namespace {

EnvLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Scheduler, NullOutsideASlurmJob) {
  EXPECT_TRUE(slurm_placement(environment({})).is_null());
  // A partition variable alone (e.g. exported by hand) is not a job.
  EXPECT_TRUE(slurm_placement(environment({{"SLURM_JOB_PARTITION", "h100"}})).is_null());
}

TEST(Scheduler, RecordsTheJobNodePartitionAndFleetTarget) {
  const auto p =
      slurm_placement(environment({{"SLURM_JOB_ID", "4242"},
                                   {"SLURM_ARRAY_JOB_ID", "4240"},
                                   {"SLURM_ARRAY_TASK_ID", "2"},
                                   {"SLURMD_NODENAME", "gpu017"},
                                   {"SLURM_JOB_PARTITION", "h100"},
                                   {"LAYERBENCH_FLEET_TARGET", "partition=h100,gres=gpu:h100:1"}}));
  EXPECT_EQ(p.at("name"), "slurm");
  EXPECT_EQ(p.at("job_id"), "4242");
  EXPECT_EQ(p.at("array_job_id"), "4240");
  EXPECT_EQ(p.at("array_task_id"), "2");
  EXPECT_EQ(p.at("node"), "gpu017");
  EXPECT_EQ(p.at("partition"), "h100");
  EXPECT_EQ(p.at("target"), "partition=h100,gres=gpu:h100:1");
}

TEST(Scheduler, UnsetVariablesAreNullNotEmpty) {
  const auto p = slurm_placement(environment({{"SLURM_JOB_ID", "7"}}));
  EXPECT_EQ(p.at("job_id"), "7");
  EXPECT_TRUE(p.at("array_task_id").is_null());
  EXPECT_TRUE(p.at("target").is_null());
  EXPECT_TRUE(p.at("node").is_null());
}

}  // namespace
}  // namespace lb
