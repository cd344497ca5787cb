#pragma once
// Model-level sums over every operation from the measured points (the results file's
// `models[]` and `boundaries[]`, reports/results-schema.md). Pure logic over Points; the
// formulas (eager and folded sums, rates, accumulation): docs/measuring.md, "Model sums".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/accounting.hpp"
#include "harness/results/point.hpp"

namespace lb {

inline constexpr const char* model_sum_label =
    "model sum: every operation of the model file (convolutions, GEMMs, normalisation, "
    "activations, residual adds, pooling, softmax), one kernel each; the optimizer excluded";

// A sum whose uncertainty (ModelResult::uncertainty) is at least this is unstable: pyperf's
// level for one benchmark's standard deviation over its mean, which the rounds apply to a point
// (harness/measure/rounds.hpp, unstable_between_sd), applied to the sum.
inline constexpr double unstable_sum_uncertainty = 0.10;

// What aggregation knows of a device: peaks in TFLOP/s by precision (a device's other than the
// CPU come from its descriptor, BackendDescriptor::describe), and the memory the device has (for
// boundaries). Absent entries give null fields.
struct DeviceLimits {
  std::map<Precision, double> peak_tflops;
  std::optional<std::uint64_t> memory_bytes;
};

struct Accumulation {
  int batch = 0;  // b, the micro-batch that fits
  int steps = 0;  // k = ceil(B / b)
  double images_per_s = 0;
  int effective_batch() const { return batch * steps; }
};

// Time per kind group (op_kind_groups, bench/op_kinds.json): milliseconds and fractions of
// the total; every group present.
struct KindTimes {
  std::map<std::string, double> ms, share;
};

// The inference estimate with the foldable batch norms dropped.
struct FoldedEstimate {
  std::vector<std::string> folded_ops;  // op ids
  double time_ms = 0, images_per_s = 0, tflops = 0;
  KindTimes kinds;
  std::optional<double> images_per_joule;  // as ModelResult's, less the folded ops' energy
};

struct ModelResult {
  std::string model, title, device, precision;
  // Empty for the device's original backend (keyed_device, harness/results/point.hpp); otherwise
  // the backend whose points alone make this sum ("openblas"): backends are never mixed in one sum.
  std::string backend;
  PassSet pass = PassSet::fwd;
  int batch = 1;
  // Op kind -> the precision its points were summed in (precision_in_model, harness/model/ops.hpp):
  // a tf32 sum takes the memory-bound kinds' fp32 points, an fp8 sum their bf16 points.
  std::map<std::string, std::string> layer_precisions;
  // ok | unsupported | oom | failed | incomplete (points missing). The worst status among the
  // expected points wins (failed > oom > unsupported > incomplete); reason names the first op
  // with it, e.g. "oom: conv3x3_64to64_56 bwd_data (layer1.0.conv2 and 2 more): <its reason>".
  std::string status = "ok", reason;
  double gflop = 0;  // the whole batch's work, from the catalogue
  // Only when status is ok:
  std::optional<double> time_ms, images_per_s, tflops, peak_fraction;
  std::map<std::string, double> time_share;  // op kind -> fraction of time_ms
  std::optional<KindTimes> kinds;            // kind group -> ms and fraction of time_ms
  std::optional<FoldedEstimate> folded;      // pass set fwd only
  // Only when status is ok and every summed point has an energy figure (its telemetry's, NVML on
  // a GPU or RAPL on a CPU): the energy of one batch (inference) or step (training), and
  // images per joule.
  std::optional<double> energy_j, images_per_joule;
  // How many of the summed points were contended (CPU lost to other processes while timed):
  // their times, and so this sum, may be slower than the machine can do.
  int contended_points = 0;
  // How many of them were unstable (their rounds disagreed widely; rounds.hpp).
  int unstable_points = 0;
  // How many of them a power or thermal cap kept throttled (DeviceTelemetry::throttled).
  int throttled_points = 0;
  // Only when status is ok: the sum's relative uncertainty, its points' (SampleStats::
  // uncertainty) weighted by their share of time_ms and added as if all erred the same way, an
  // upper bound when one state of the machine moves them together; and whether it is at least
  // unstable_sum_uncertainty.
  std::optional<double> uncertainty;
  bool unstable = false;
  // Only when status is oom:
  std::optional<int> largest_fitting_batch;
  std::optional<Accumulation> accumulation;
  std::string estimate = "eager";
  std::string label = model_sum_label;
};

// Where memory runs out, for every model/device/precision/pass set with an oom batch.
struct Boundary {
  std::string model, device, precision;
  PassSet pass = PassSet::fwd;
  std::optional<int> largest_fitting_batch;  // largest batch below first_oom_batch that is ok
  int first_oom_batch = 0;
  std::optional<std::uint64_t> memory_limit_bytes;
};

struct Aggregation {
  std::vector<ModelResult> models;
  std::vector<Boundary> boundaries;
};

// One result per model, device and backend, precision, pass set and batch present in the points:
// fwd whenever forward points exist, train when the model/device/precision has any backward point.
// A precision whose every point is noted planned_for another precision's sums (the run plan's
// substitutes, harness/plan/plan.hpp) has no result of its own.
// Ordered by model (catalogue order), device and backend (first seen), precision, pass set, batch.
// A later point with the same identity replaces an earlier one. Throws std::invalid_argument for a
// point of a model not in `models`, or an op the model does not have.
Aggregation aggregate(const std::vector<Point>& points, const std::vector<Model>& models,
                      const std::map<std::string, DeviceLimits>& devices);

// Exactly the fields of the schema's models[] and boundaries[] records.
nlohmann::json to_json(const ModelResult& result);
nlohmann::json to_json(const Boundary& boundary);

}  // namespace lb
