#include "harness/results/point.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "harness/plan/plan.hpp"
#include "harness/results/backend_roles.hpp"

namespace lb {

std::string_view name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::unsupported:
      return "unsupported";
    case Status::oom:
      return "oom";
    case Status::failed:
      return "failed";
  }
  return "?";
}

namespace {
nlohmann::json timing_json(const SampleStats& t, const std::string& cache) {
  nlohmann::json j = {{"cache", cache},
                      {"samples", t.samples},
                      {"median_ms", t.median_s * 1e3},
                      {"min_ms", t.min_s * 1e3},
                      {"max_ms", t.max_s * 1e3},
                      {"mean_ms", t.mean_s * 1e3},
                      {"stddev_ms", t.stddev_s * 1e3},
                      {"noise", t.noise},
                      {"stopped_by", t.stopped_by}};
  if (t.cpu_share)  // CPU points: the pre-emption check's record
    j.update({{"cpu_share", *t.cpu_share},
              {"preempted_samples", t.preempted_samples},
              {"contended", t.contended}});
  if (!t.round_medians_s.empty()) {
    nlohmann::json medians = nlohmann::json::array();
    for (double m : t.round_medians_s) medians.push_back(m * 1e3);
    j.update({{"rounds", t.round_medians_s.size()},
              {"round_medians_ms", medians},
              {"round_contended", t.round_contended},
              {"best_round", t.best_round + 1},
              {"round_spread", t.round_spread}});
  }
  return j;
}

// A name of one of `values` (an enum the results file spells by name).
template <class Enum, std::size_t n>
Enum named(const JsonField& field, const Enum (&values)[n]) {
  const std::string text = field.string();
  std::string known;
  for (Enum v : values) {
    if (name(v) == text) return v;
    known += (known.empty() ? "" : ", ") + std::string(name(v));
  }
  field.expected("one of " + known);
}

constexpr Status all_statuses[] = {Status::ok, Status::unsupported, Status::oom, Status::failed};

// A resumed or reported point must be one the runner could have written: an ok point timed
// (positive, finite times) and validated.
SampleStats timing_from_json(const JsonField& t) {
  SampleStats s;
  s.samples = t["samples"].integer<std::int64_t>(1);
  s.median_s = t["median_ms"].positive_number() / 1e3;
  s.min_s = t["min_ms"].positive_number() / 1e3;
  s.max_s = t["max_ms"].positive_number() / 1e3;
  s.mean_s = t["mean_ms"].number() / 1e3;
  s.stddev_s = t["stddev_ms"].number() / 1e3;
  s.noise = t["noise"].number();
  s.stopped_by = t["stopped_by"].string();
  if (const auto share = t.optional("cpu_share")) {  // files from before the pre-emption check
    s.cpu_share = share->number();
    s.preempted_samples = t["preempted_samples"].integer<std::int64_t>(0);
    s.contended = t["contended"].boolean();
  }
  if (const auto rounds = t.optional("rounds")) {  // files from before interleaved rounds
    const auto n = rounds->integer<std::size_t>(1);
    const JsonField medians = t["round_medians_ms"];
    medians.array("one positive number per round", n, n);
    for (std::size_t i = 0; i < n; ++i)
      s.round_medians_s.push_back(medians[i].positive_number() / 1e3);
    const JsonField contended = t["round_contended"];
    contended.array("one true or false per round", n, n);
    for (std::size_t i = 0; i < n; ++i) s.round_contended.push_back(contended[i].boolean());
    s.best_round = t["best_round"].integer<std::size_t>(1, n) - 1;
    s.round_spread = t["round_spread"].number();
  }
  return s;
}

Validation validation_from_json(const JsonField& v) {
  Validation val;
  val.rel_l2 = v["rel_l2"].number();
  val.max_abs = v["max_abs"].number();
  val.tolerance = v["tolerance"].number();
  val.checked_elements = v["checked_elements"].integer<std::int64_t>();
  val.total_elements = v["total_elements"].integer<std::int64_t>();
  if (const auto n = v.optional("non_finite_elements"))  // absent in older files
    val.non_finite_elements = n->integer<std::int64_t>();
  if (const auto n = v.optional("misassigned_windows"))  // absent in older files
    val.misassigned_windows = n->integer<std::int64_t>();
  val.passed = v["passed"].boolean();
  return val;
}

std::string optional_string(const JsonField& object, std::string_view key) {
  const auto field = object.optional(key);
  return field ? field->string() : "";
}

}  // namespace

std::string keyed_device(const std::string& device, std::string_view backend) {
  if (backend.empty()) return device;  // a point naming no backend: its device's primary one's
  for (const BackendRole& role : backend_roles())
    if (role.primary &&
        (role.name == backend || std::find(role.point_backends.begin(), role.point_backends.end(),
                                           backend) != role.point_backends.end()))
      return device;
  return device + "@" + std::string(backend);
}

bool measured_by(std::string_view library, std::string_view backend) {
  for (const BackendRole& role : backend_roles())
    if (role.name == backend)
      return std::find(role.point_backends.begin(), role.point_backends.end(), library) !=
             role.point_backends.end();
  return library == backend;
}

std::string point_key(const std::string& model, const std::string& op, int batch,
                      std::string_view precision, std::string_view pass,
                      const std::string& device) {
  return model + "/" + op + "/b" + std::to_string(batch) + "/" + std::string(precision) + "/" +
         std::string(pass) + "/" + device;
}

std::string point_key(const PlannedPoint& pp) {
  return point_key(pp.model->name, pp.op->id, pp.batch, name(pp.precision), name(pp.pass),
                   keyed_device(pp.device, pp.backend));
}

std::string Point::key() const {
  return point_key(model, op, batch, name(precision), name(pass), keyed_device(device, backend));
}

nlohmann::json to_json(const Point& p) {
  nlohmann::json j = {{"model", p.model},
                      {"op", p.op},
                      {"kind", name(p.kind)},
                      {"layers", p.layers},
                      {"count", p.count},
                      {"batch", p.batch},
                      {"precision", name(p.precision)},
                      {"precision_meaning", p.precision_meaning},
                      {"pass", name(p.pass)},
                      {"device", p.device},
                      {"shape", p.shape},
                      {"shape_text", p.shape_text},
                      {"gflop", p.gflop},
                      {"bytes", p.bytes},
                      {"intensity", p.intensity},
                      {"memory_bytes", p.memory_bytes},
                      {"workspace_bytes", p.workspace_bytes},
                      {"backend", p.backend},
                      {"implementation", p.implementation},
                      {"notes", p.notes},
                      {"timing", nullptr},
                      {"tflops", nullptr},
                      {"gbps", nullptr},
                      {"validation", nullptr},
                      {"status", name(p.status)},
                      {"reason", p.reason}};
  if (p.timing) {
    j["timing"] = timing_json(*p.timing, p.cache);
    j["tflops"] = p.tflops;
    j["gbps"] = p.gbps;
  }
  if (p.validation) {
    const auto& v = *p.validation;
    j["validation"] = {{"rel_l2", v.rel_l2},
                       {"max_abs", v.max_abs},
                       {"tolerance", v.tolerance},
                       {"checked_elements", v.checked_elements},
                       {"total_elements", v.total_elements},
                       {"non_finite_elements", v.non_finite_elements},
                       {"misassigned_windows", v.misassigned_windows},
                       {"passed", v.passed}};
  }
  return j;
}

Point point_from_json(const JsonField& j) {
  j.require_object();
  Point p;
  p.model = j["model"].string();
  p.op = j["op"].string();
  p.kind = named(j["kind"], all_op_kinds);
  const JsonField layers = j["layers"];
  for (std::size_t i = 0, n = layers.array("an array of strings"); i < n; ++i)
    p.layers.push_back(layers[i].string());
  p.count = j["count"].integer<int>(1);
  p.batch = j["batch"].integer<int>(1);
  p.precision = named(j["precision"], all_precisions);
  p.precision_meaning = optional_string(j, "precision_meaning");
  p.pass = named(j["pass"], all_passes);
  p.device = j["device"].string();
  p.shape = j["shape"].json();
  p.shape_text = optional_string(j, "shape_text");
  p.gflop = j["gflop"].number();
  p.bytes = j["bytes"].number();
  p.intensity = j["intensity"].number();
  p.memory_bytes = j["memory_bytes"].integer<std::uint64_t>();
  if (const auto w = j.optional("workspace_bytes")) p.workspace_bytes = w->integer<std::uint64_t>();
  p.backend = optional_string(j, "backend");
  p.implementation = optional_string(j, "implementation");
  if (const auto notes = j.optional("notes")) {
    notes->require_object("an object of strings");
    for (const auto& item : notes->json().items())
      p.notes[item.key()] = (*notes)[item.key()].string();
  }
  if (const JsonField t = j["timing"]; !t.json().is_null()) {
    t.require_object();
    p.timing = timing_from_json(t);
    p.cache = t["cache"].string();
    p.tflops = j["tflops"].number();
    p.gbps = j["gbps"].number();
  }
  if (const JsonField v = j["validation"]; !v.json().is_null()) {
    v.require_object();
    p.validation = validation_from_json(v);
  }
  const JsonField status = j["status"];
  p.status = named(status, all_statuses);
  p.reason = optional_string(j, "reason");
  if (p.status == Status::ok && (!p.timing || !p.validation))
    status.fail("\"ok\" without timing and validation");
  return p;
}

}  // namespace lb
