#pragma once
// The suites `layerbench run --suite` offers, in one table: what each plans and how it samples
// when the flags do not say. The CLI's choices, the plan, the settings' check and `layerbench
// list --suites` (which scripts/slurm/fleet.py reads) are derived from it.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/accounting.hpp"

namespace lb {

// How a suite samples unless the flags say: its rounds (--rounds), its sampling time per point
// and round (--max-time-per-point, and the minimum before the noise target may stop it) and the
// least time each visit warms up for (Sampler::warmup_min_s).
struct SuiteSampling {
  int rounds = 0;
  double max_time_s = 0, min_time_s = 0;
  double warmup_min_s = 0;
};

struct Suite {
  std::string name;
  std::vector<std::string> models;  // empty: every available model
  std::vector<PassSet> pass_sets;
  std::vector<int> cpu_batches, gpu_batches;
  // GPU batches go up to a limit no GPU reaches; each sweep stops at its first out-of-memory
  // batch (harness/measure/oom_sweep.hpp).
  bool sweep_until_oom = false;
  SuiteSampling sampling;
};

// Every suite, in the order help texts list them; the first is the default.
const std::vector<Suite>& suites();
const Suite& default_suite();
// The suite of that name, or nullptr; suite_named throws std::invalid_argument naming --suite
// and the suites there are instead.
const Suite* find_suite(std::string_view name);
const Suite& suite_named(std::string_view name);
// "quick, standard, full": for choices and error messages.
std::vector<std::string> suite_names();
std::string suite_names_text();

}  // namespace lb
