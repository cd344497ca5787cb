// Every backend this build registers against one contract: each problem it does not refuse, of
// every kind and precision on the tiny test models, prepares, runs and matches the reference;
// each one it refuses says why. A backend whose devices its own doctor check finds unusable
// (a GPU backend on a machine without a GPU) is skipped with that check's verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bench/backend_registry.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"
#include "tests/unit/backend_case_support.hpp"

namespace lb {
namespace {

// Every op of the tiny test models (every op kind between them) at batch 1, in every pass a
// forward or training run measures and every precision.
std::vector<Problem> tiny_problems() {
  std::vector<Problem> problems;
  for (const char* file : {"tiny.json", "tiny_memory.json"}) {
    const Model model =
        load_model_file(std::string(LAYERBENCH_SOURCE_DIR) + "/tests/data/models/" + file);
    for (const Op& op : model.ops) {
      std::vector<Pass> passes = passes_for(op, PassSet::fwd);
      for (Pass pass : passes_for(op, PassSet::train))
        if (std::find(passes.begin(), passes.end(), pass) == passes.end()) passes.push_back(pass);
      for (Pass pass : passes)
        for (Precision precision : all_precisions)
          problems.push_back(problem_for(op, 1, pass, precision));
    }
  }
  return problems;
}

std::string label(const Problem& p) { return describe(p) + " " + std::string(name(p.precision)); }

class BackendConformance : public ::testing::TestWithParam<const BackendDescriptor*> {};

TEST_P(BackendConformance, EveryProblemRunsAndValidatesOrIsRefusedWithAReason) {
  const BackendDescriptor& descriptor = *GetParam();
  const DeviceUsability usable = descriptor.usability(probe_machine(), doctor::load_facts());
  if (usable.usable.empty()) GTEST_SKIP() << descriptor.name << ": " << usable.verdict;
  // 0 threads: the backend's default, which every build can use (one without OpenMP cannot set it).
  const auto backend = descriptor.make(usable.usable.front(), 0, {});
  int ran = 0, refused = 0;
  for (const Problem& problem : tiny_problems()) {
    SCOPED_TRACE(label(problem));
    if (const auto reason = backend->unsupported_reason(problem)) {
      EXPECT_FALSE(reason->empty()) << "a refusal without a reason";
      ++refused;
      continue;
    }
    try {
      const testing::CaseOutcome outcome = testing::prepare_run_validate(*backend, problem, {}, 2);
      EXPECT_TRUE(outcome.validation.passed) << "rel_l2 " << outcome.validation.rel_l2;
      EXPECT_FALSE(outcome.prepared->implementation().empty());
      EXPECT_FALSE(outcome.prepared->library().empty());
      ++ran;
    } catch (const Unsupported& refusal) {  // found out while preparing
      EXPECT_STRNE(refusal.what(), "") << "a refusal without a reason";
      ++refused;
    }
  }
  RecordProperty("ran", ran);
  RecordProperty("refused", refused);
  EXPECT_GT(ran, 0) << descriptor.name << " ran none of the tiny models' problems";
}

std::string backend_name(const ::testing::TestParamInfo<const BackendDescriptor*>& info) {
  return info.param->name;
}

INSTANTIATE_TEST_SUITE_P(Registered, BackendConformance, ::testing::ValuesIn(backend_descriptors()),
                         backend_name);

}  // namespace
}  // namespace lb
