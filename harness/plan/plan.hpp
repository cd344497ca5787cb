#pragma once
// What `layerbench run` measures: a suite (harness/plan/suites.hpp), explicit flags that
// override it, and the order of the points. Pure logic: no backend is asked anything; a
// backend records the precisions its device lacks as `unsupported` when the point runs.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/api/precision.hpp"
#include "harness/model/accounting.hpp"
#include "harness/plan/suites.hpp"

namespace lb {

// A device the run may use, as the caller found it: id "cpu", "gpu:N" or "<kind>:N", and the
// backend that measures on it ("onednn", "openblas", "cuda"). A device may appear once per
// backend. Any device but the CPU is an accelerator: the suite's GPU batches, every precision.
struct DeviceTarget {
  std::string id;
  bool accelerator = false;
  std::string backend;
};

// The command line's request; an empty list means "the suite's default".
struct RunRequest {
  std::string suite = default_suite().name;  // a suite of harness/plan/suites.hpp
  std::vector<std::string> models;
  std::vector<int> batches;
  std::vector<Precision> precisions;
  std::optional<PassSet> pass;
};

// One point to measure. `model` and `op` point into the models given to expand_plan, which
// must outlive the plan.
struct PlannedPoint {
  const Model* model = nullptr;
  const Op* op = nullptr;
  int batch = 1;
  Precision precision = Precision::fp32;
  Pass pass = Pass::fwd;
  std::string device;
  bool accelerator = false;
  std::string backend;  // the DeviceTarget's
  double gflop = 0;     // work of one executed problem (one layer of the op's shape)
  // Not empty for a memory-bound point at a precision the request did not ask, planned because
  // the sums of the precisions named here ("tf32") take their memory-bound layers in this one;
  // its Point notes it (planned_for_note, harness/results/point.hpp).
  std::string planned_for;
};

struct Plan {
  std::vector<PlannedPoint> points;
  bool sweep_until_oom = false;  // the suite's (Suite::sweep_until_oom)
};

// The points a request measures: the suite's unless the flags replace its models, passes and
// batches, in the order docs/measuring.md ("Points") gives and says why. A precision whose model
// sums take the memory-bound layers in another (memory_bound_precision: tf32 -> fp32, fp8 ->
// bf16) that the request does not ask has those layers planned in that one too. Throws
// std::invalid_argument naming the flag (--suite, --model, --device) for a bad request.
Plan expand_plan(const RunRequest& request, const std::vector<Model>& available_models,
                 const std::vector<DeviceTarget>& devices);

// Flag parsers: "1,8,32" -> {1, 8, 32}; "fp32,fp16". Throw std::invalid_argument naming the
// flag (or the settings field, `label`) and the bad value ("--batch: '0' is not a positive
// integer"). Duplicates are dropped.
std::vector<int> parse_batch_list(std::string_view text, std::string_view label = "--batch");
std::vector<Precision> parse_precision_list(std::string_view text,
                                            std::string_view label = "--precision");

}  // namespace lb
