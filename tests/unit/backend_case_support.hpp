#pragma once
// What every backend test does with a problem: prepare it, run it, validate its output against
// the double-precision reference. One helper, so no backend's test rewrites it.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/check/validate.hpp"
#include "harness/measure/inputs.hpp"

namespace lb::testing {

struct CaseOutcome {
  std::unique_ptr<Case> prepared;
  Validation validation;
};

// Prepares `problem` with inputs drawn from `seed`, runs it `runs` times (each run must take
// time) and validates the last run's output. Throws what prepare throws.
inline CaseOutcome prepare_run_validate(Backend& backend, const Problem& problem,
                                        const CaseOptions& options = {}, int runs = 3,
                                        std::uint64_t seed = 5) {
  const std::vector<HostTensor> inputs = make_inputs(problem, seed);
  CaseOutcome outcome{backend.prepare(problem, inputs, options), {}};
  for (int i = 0; i < runs; ++i) EXPECT_GT(outcome.prepared->run_timed(), 0.0) << describe(problem);
  outcome.validation = validate(problem, inputs, outcome.prepared->output(), problem.precision);
  return outcome;
}

}  // namespace lb::testing
