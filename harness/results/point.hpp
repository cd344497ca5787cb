#pragma once
// The results file: schema "layerbench-results/1" (documented in reports/results-schema.md).
// One Point per measured (or refused) model op x batch x precision x pass x device.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/api/precision.hpp"
#include "harness/api/telemetry.hpp"
#include "harness/model/ops.hpp"
#include "harness/plan/point_identity.hpp"
#include "harness/util/json_fields.hpp"
#include "harness/util/stats.hpp"

namespace lb {

inline constexpr const char* results_schema = "layerbench-results/1";

enum class Status { ok, unsupported, oom, failed };
std::string_view name(Status s);

struct Validation {
  double rel_l2 = 0;
  double max_abs = 0;
  double tolerance = 0;
  std::int64_t checked_elements = 0;
  std::int64_t total_elements = 0;
  std::int64_t non_finite_elements = 0;  // NaN or infinity, over every element
  // Max-pool backward: tied windows whose gradient went to none or several of their maxima.
  std::int64_t misassigned_windows = 0;
  bool passed = false;
};

// The notes key of a point the run plan added only because another precision's model sums take
// their memory-bound layers in this one (memory_bound_precision, harness/api/precision.hpp): its
// value names those precisions ("tf32"). Such a point is measured as any other.
inline constexpr const char* planned_for_note = "planned_for";

struct Point {
  // What was asked
  std::string model, op;
  OpKind kind = OpKind::conv;
  std::vector<std::string> layers;
  int count = 1;  // how many layers of the model share this shape
  int batch = 1;
  Precision precision = Precision::fp32;
  Pass pass = Pass::fwd;
  std::string device;
  std::string precision_meaning;
  nlohmann::json shape;    // the executed problem's dimensions
  std::string shape_text;  // describe(problem)
  // Accounting (from the problem descriptor)
  double gflop = 0, bytes = 0, intensity = 0;
  std::uint64_t memory_bytes = 0;  // catalogue estimate, without workspace
  // What ran
  std::string backend, implementation;
  std::uint64_t workspace_bytes = 0;
  std::map<std::string, std::string> notes;
  // Measurement
  std::string cache;  // "cold" or "warm"
  std::optional<SampleStats> timing;
  double tflops = 0, gbps = 0;
  std::optional<Validation> validation;
  // The device's clocks, power and energy over the samples (GPU points); the file's "telemetry".
  std::optional<DeviceTelemetry> telemetry;
  // Outcome
  Status status = Status::ok;
  std::string reason;  // why, for anything but ok

  // Identifies the measured point across runs (used by resume and comparisons).
  std::string key() const;
};

// Whether a point whose `backend` field is `library` can have been measured by the run's backend
// `backend`: one of the names its points record (backend_roles.hpp), or its own name.
bool measured_by(std::string_view library, std::string_view backend);

nlohmann::json to_json(const Point& p);
// Reads a point written by to_json, or by an older layerbench, checking every field; throws
// FieldError naming the point's file and the field ("<file>: points[3].batch: missing").
Point point_from_json(const JsonField& point);

}  // namespace lb
