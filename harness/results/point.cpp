#include "harness/results/point.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "harness/plan/backend_roles.hpp"

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
  if (t.canary_slowdown > 0)
    j.update({{"canary_slowdown", t.canary_slowdown},
              {"canary_memory_slowdown", t.canary_memory_slowdown}});
  if (!t.round_medians_s.empty()) {
    nlohmann::json medians = nlohmann::json::array();
    for (double m : t.round_medians_s) medians.push_back(m * 1e3);
    j.update({{"rounds", t.round_medians_s.size()},
              {"round_medians_ms", medians},
              {"round_contended", t.round_contended},
              {"best_round", t.best_round + 1},
              {"round_spread", t.round_spread},
              {"unstable", t.unstable},
              {"uncertainty", t.uncertainty}});
    if (!t.round_canary_slowdowns.empty()) j["round_canary_slowdowns"] = t.round_canary_slowdowns;
    if (!t.round_canary_memory_slowdowns.empty())
      j["round_canary_memory_slowdowns"] = t.round_canary_memory_slowdowns;
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

// An optional list of one number per round (files from before it lack it).
void read_per_round(const JsonField& t, const char* key, std::size_t rounds,
                    std::vector<double>& values) {
  const auto list = t.optional(key);
  if (!list) return;
  list->array("one canary slowdown per round", rounds, rounds);
  for (std::size_t i = 0; i < rounds; ++i) values.push_back((*list)[i].number());
}

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
  s.uncertainty = s.noise;  // files from before rounds: the in-run noise alone
  if (const auto share = t.optional("cpu_share")) {  // files from before the pre-emption check
    s.cpu_share = share->number();
    s.preempted_samples = t["preempted_samples"].integer<std::int64_t>(0);
    s.contended = t["contended"].boolean();
  }
  if (const auto slowdown = t.optional("canary_slowdown"))  // files from before the canary
    s.canary_slowdown = slowdown->positive_number();
  if (const auto slowdown = t.optional("canary_memory_slowdown"))
    s.canary_memory_slowdown = slowdown->number();
  if (const auto rounds = t.optional("rounds")) {  // files from before interleaved rounds
    const auto n = rounds->integer<std::size_t>(1);
    const JsonField medians = t["round_medians_ms"];
    medians.array("one positive number per round", n, n);
    for (std::size_t i = 0; i < n; ++i)
      s.round_medians_s.push_back(medians[i].positive_number() / 1e3);
    const JsonField contended = t["round_contended"];
    contended.array("one true or false per round", n, n);
    for (std::size_t i = 0; i < n; ++i) s.round_contended.push_back(contended[i].boolean());
    read_per_round(t, "round_canary_slowdowns", n, s.round_canary_slowdowns);
    read_per_round(t, "round_canary_memory_slowdowns", n, s.round_canary_memory_slowdowns);
    s.best_round = t["best_round"].integer<std::size_t>(1, n) - 1;
    s.round_spread = t["round_spread"].number();
    // Files from before the rounds were judged lack both.
    if (const auto unstable = t.optional("unstable")) s.unstable = unstable->boolean();
    s.uncertainty = std::max(s.noise, s.round_spread);
    if (const auto uncertainty = t.optional("uncertainty")) s.uncertainty = uncertainty->number();
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

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// The point's telemetry with its per-joule figures: GFLOP per joule, and GB per joule for a
// memory-bound operation (its own bytes over the energy of one median run).
nlohmann::json telemetry_json(const Point& p) {
  const DeviceTelemetry& t = *p.telemetry;
  nlohmann::json j = {{"source", t.source},
                      {"samples", t.samples},
                      {"sm_clock_min_mhz", optional_number(t.sm_clock_min_mhz)},
                      {"sm_clock_median_mhz", optional_number(t.sm_clock_median_mhz)},
                      {"memory_clock_min_mhz", optional_number(t.memory_clock_min_mhz)},
                      {"memory_clock_median_mhz", optional_number(t.memory_clock_median_mhz)},
                      {"power_median_w", optional_number(t.power_median_w)},
                      {"energy_j", optional_number(t.energy_j)},
                      {"energy_method", t.energy_method},
                      {"window_s", t.window_s},
                      {"clock_event_reasons", t.clock_event_reasons},
                      {"throttled_samples", t.throttled_samples},
                      {"retaken_samples", t.retaken_samples},
                      {"throttled", t.throttled},
                      {"device_lost", t.device_lost},
                      {"absent", t.absent}};
  const auto joules = p.timing ? joules_per_run(t, p.timing->median_s) : std::nullopt;
  j["joules_per_run"] = optional_number(joules);
  j["gflop_per_joule"] = optional_number(
      joules && p.gflop > 0 ? std::optional<double>(p.gflop / *joules) : std::nullopt);
  j["gb_per_joule"] = optional_number(joules && is_memory_bound(p.kind)
                                          ? std::optional<double>(p.bytes / 1e9 / *joules)
                                          : std::nullopt);
  return j;
}

std::optional<double> number_or_null(const JsonField& object, std::string_view key) {
  const JsonField field = object[key];
  if (field.json().is_null()) return std::nullopt;
  return field.number();
}

DeviceTelemetry telemetry_from_json(const JsonField& t) {
  t.require_object();
  DeviceTelemetry d;
  d.source = t["source"].string();
  d.samples = t["samples"].integer<std::int64_t>(0);
  d.sm_clock_min_mhz = number_or_null(t, "sm_clock_min_mhz");
  d.sm_clock_median_mhz = number_or_null(t, "sm_clock_median_mhz");
  d.memory_clock_min_mhz = number_or_null(t, "memory_clock_min_mhz");
  d.memory_clock_median_mhz = number_or_null(t, "memory_clock_median_mhz");
  d.power_median_w = number_or_null(t, "power_median_w");
  d.energy_j = number_or_null(t, "energy_j");
  d.energy_method = t["energy_method"].string();
  d.window_s = t["window_s"].number();
  const JsonField reasons = t["clock_event_reasons"];
  for (std::size_t i = 0, n = reasons.array("an array of strings"); i < n; ++i)
    d.clock_event_reasons.push_back(reasons[i].string());
  d.throttled_samples = t["throttled_samples"].integer<std::int64_t>(0);
  d.retaken_samples = t["retaken_samples"].integer<std::int64_t>(0);
  d.throttled = t["throttled"].boolean();
  d.device_lost = t["device_lost"].boolean();
  const JsonField absent = t["absent"];
  absent.require_object("an object of strings");
  for (const auto& item : absent.json().items()) d.absent[item.key()] = absent[item.key()].string();
  return d;
}

std::string optional_string(const JsonField& object, std::string_view key) {
  const auto field = object.optional(key);
  return field ? field->string() : "";
}

}  // namespace

bool measured_by(std::string_view library, std::string_view backend) {
  for (const BackendRole& role : backend_roles())
    if (role.name == backend)
      return std::find(role.point_backends.begin(), role.point_backends.end(), library) !=
             role.point_backends.end();
  return library == backend;
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
  if (p.telemetry) j["telemetry"] = telemetry_json(p);
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
  p.kind = read_op_kind(j["kind"]);
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
  if (const auto t = j.optional("telemetry"))  // GPU points from layerbench with telemetry
    p.telemetry = telemetry_from_json(*t);
  const JsonField status = j["status"];
  p.status = named(status, all_statuses);
  p.reason = optional_string(j, "reason");
  if (p.status == Status::ok && (!p.timing || !p.validation))
    status.fail("\"ok\" without timing and validation");
  return p;
}

}  // namespace lb
