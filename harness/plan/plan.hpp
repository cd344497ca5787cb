#pragma once
// What `layerbench run` measures: the suites (quick, standard, full), explicit flags that
// override them, and the order of the points. Pure logic: no backend is asked anything; a
// backend records the precisions its device lacks as `unsupported` when the point runs.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/model/accounting.hpp"
#include "harness/precision.hpp"

namespace lb {

// A device the run may use, as the caller found it: id "cpu" or "gpu:N", and the backend that
// measures on it ("onednn", "openblas", "cuda"). A device may appear once per backend.
struct DeviceTarget {
  std::string id;
  bool is_gpu = false;
  std::string backend;
};

// The command line's request; an empty list means "the suite's default".
struct RunRequest {
  std::string suite = "quick";  // quick | standard | full
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
  bool is_gpu = false;
  std::string backend;  // the DeviceTarget's
  double gflop = 0;     // work of one executed problem (one layer of the op's shape)
};

struct Plan {
  std::vector<PlannedPoint> points;
  // `full`: GPU batches go up to a limit no GPU reaches; the runner stops each sweep at its
  // first out-of-memory batch (see harness/measure/oom_sweep.hpp) and records the larger batches as
  // oom.
  bool sweep_until_oom = false;
};

// The suites (defaults that explicit flags replace):
//   quick (default): resnet50, vit_b_16; fwd; batch 1 and 8;
//   standard:        every model; fwd and train; batch 1..64 (powers of two) on GPUs, 1..8 on CPUs;
//   full:            as standard, GPU batches 1..4096 swept until out of memory.
// Precisions: every one for GPUs; fp32 and bf16 for CPUs (oneDNN on AVX2 reports bf16
// unsupported, which the results then say). fwd and train share their forward points: a
// training request measures fwd, bwd_data and bwd_weights, and both sums come from them.
//
// Order: the points of one device/backend/model/precision/batch are contiguous (a killed run leaves
// whole models), forward passes first within it; these groups run cheapest first by their
// GFLOP, so a sweep's batches ascend. Throws std::invalid_argument naming the flag (--suite,
// --model, --device) for a bad request.
Plan expand_plan(const RunRequest& request, const std::vector<Model>& available_models,
                 const std::vector<DeviceTarget>& devices);

// Flag parsers: "1,8,32" -> {1, 8, 32}; "fp32,fp16". Throw std::invalid_argument naming the
// flag (or the settings field, `label`) and the bad value ("--batch: '0' is not a positive
// integer"). Duplicates are dropped.
std::vector<int> parse_batch_list(std::string_view text, std::string_view label = "--batch");
std::vector<Precision> parse_precision_list(std::string_view text,
                                            std::string_view label = "--precision");

}  // namespace lb
