#include "harness/results/point.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

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
Status parse_status(const std::string& s) {
  for (Status v : {Status::ok, Status::unsupported, Status::oom, Status::failed})
    if (name(v) == s) return v;
  throw std::runtime_error("status: unknown value '" + s + "'");
}

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
  return j;
}

// nlohmann converts a JSON number to an integer type with a plain cast, undefined for a value
// outside the type (1e300 as an int; found by tests/fuzz/results_file_fuzz): integers are read
// only from JSON integers within the type's range.
template <class T>
T whole_number(const nlohmann::json& v, const char* key) {
  const bool fits = v.is_number_unsigned()
                        ? std::in_range<T>(v.get<std::uint64_t>())
                        : v.is_number_integer() && std::in_range<T>(v.get<std::int64_t>());
  if (!fits)
    throw std::runtime_error(std::string(key) + " is " + v.dump() + ", not an integer in range");
  return v.get<T>();
}

// A timing figure; the writer writes a NaN or infinity as null, which no measurement gives.
double timing_number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number())
    throw std::runtime_error(std::string("timing.") + key + " is " +
                             (j.contains(key) ? j.at(key).dump() : "missing") + ", not a number");
  return j.at(key).get<double>();
}

SampleStats timing_from_json(const nlohmann::json& j) {
  SampleStats t;
  t.samples = whole_number<std::int64_t>(j.at("samples"), "timing.samples");
  t.median_s = timing_number(j, "median_ms") / 1e3;
  t.min_s = timing_number(j, "min_ms") / 1e3;
  t.max_s = timing_number(j, "max_ms") / 1e3;
  t.mean_s = timing_number(j, "mean_ms") / 1e3;
  t.stddev_s = timing_number(j, "stddev_ms") / 1e3;
  t.noise = timing_number(j, "noise");
  t.stopped_by = j.at("stopped_by").get<std::string>();
  if (j.contains("cpu_share")) {  // files from before the pre-emption check lack all three
    t.cpu_share = timing_number(j, "cpu_share");
    t.preempted_samples =
        whole_number<std::int64_t>(j.at("preempted_samples"), "timing.preempted_samples");
    t.contended = j.at("contended").get<bool>();
  }
  return t;
}
// A point resumed or reported must be one the runner could have written: counts of at least
// one, and an ok point timed (positive, finite times) and validated.
void check_measured(const Point& p) {
  const auto bad = [&](const std::string& field, const std::string& why) {
    throw std::runtime_error("point " + p.key() + ": " + field + " " + why);
  };
  if (p.batch < 1) bad("batch", std::to_string(p.batch) + " is not a batch size (>= 1)");
  if (p.count < 1) bad("count", std::to_string(p.count) + " is not a count (>= 1)");
  if (p.timing) {
    const SampleStats& t = *p.timing;
    if (t.samples < 1) bad("timing.samples", std::to_string(t.samples) + " is below 1");
    for (const auto& [field, seconds] :
         {std::pair{"timing.median_ms", t.median_s}, std::pair{"timing.min_ms", t.min_s},
          std::pair{"timing.max_ms", t.max_s}})
      if (!std::isfinite(seconds) || seconds <= 0)
        bad(field, std::to_string(seconds * 1e3) + " is not a measured time (finite, > 0)");
  }
  if (p.status == Status::ok && (!p.timing || !p.validation))
    bad("status", "is ok without timing and validation");
}

}  // namespace

std::string keyed_device(const std::string& device, std::string_view backend) {
  constexpr std::string_view original[] = {"", "onednn", "cuda", "cudnn", "cublaslt"};
  for (std::string_view name : original)
    if (backend == name) return device;
  return device + "@" + std::string(backend);
}

std::string point_key(const std::string& model, const std::string& op, int batch,
                      std::string_view precision, std::string_view pass,
                      const std::string& device) {
  return model + "/" + op + "/b" + std::to_string(batch) + "/" + std::string(precision) + "/" +
         std::string(pass) + "/" + device;
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
                       {"passed", v.passed}};
  }
  return j;
}

Point point_from_json(const nlohmann::json& j) {
  const auto field = [&](const char* key) -> const nlohmann::json& {
    if (!j.contains(key))
      throw std::runtime_error(std::string("point: missing field '") + key + "'");
    return j.at(key);
  };
  // A name the plan's enum knows, else the same error as an unknown status.
  const auto parsed = [&](const char* key, auto parse) {
    const auto text = field(key).get<std::string>();
    const auto value = parse(text);
    if (!value) throw std::runtime_error(std::string(key) + ": unknown value '" + text + "'");
    return *value;
  };
  try {
    Point p;
    p.model = field("model").get<std::string>();
    p.op = field("op").get<std::string>();
    p.kind = parsed("kind", parse_op_kind);
    p.layers = field("layers").get<std::vector<std::string>>();
    p.count = whole_number<int>(field("count"), "count");
    p.batch = whole_number<int>(field("batch"), "batch");
    p.precision = parsed("precision", parse_precision);
    p.precision_meaning = j.value("precision_meaning", "");
    p.pass = parsed("pass", parse_pass);
    p.device = field("device").get<std::string>();
    p.shape = field("shape");
    p.shape_text = j.value("shape_text", "");
    p.gflop = field("gflop").get<double>();
    p.bytes = field("bytes").get<double>();
    p.intensity = field("intensity").get<double>();
    p.memory_bytes = whole_number<std::uint64_t>(field("memory_bytes"), "memory_bytes");
    p.workspace_bytes =
        j.contains("workspace_bytes")
            ? whole_number<std::uint64_t>(j.at("workspace_bytes"), "workspace_bytes")
            : 0;
    p.backend = j.value("backend", "");
    p.implementation = j.value("implementation", "");
    p.notes = j.value("notes", std::map<std::string, std::string>{});
    if (const auto& t = field("timing"); !t.is_null()) {
      p.timing = timing_from_json(t);
      p.cache = t.at("cache").get<std::string>();
      p.tflops = field("tflops").get<double>();
      p.gbps = field("gbps").get<double>();
    }
    if (const auto& v = field("validation"); !v.is_null()) {
      Validation val;
      val.rel_l2 = v.at("rel_l2").get<double>();
      val.max_abs = v.at("max_abs").get<double>();
      val.tolerance = v.at("tolerance").get<double>();
      val.checked_elements =
          whole_number<std::int64_t>(v.at("checked_elements"), "checked_elements");
      val.total_elements = whole_number<std::int64_t>(v.at("total_elements"), "total_elements");
      val.non_finite_elements =  // absent in older files
          v.contains("non_finite_elements")
              ? whole_number<std::int64_t>(v.at("non_finite_elements"), "non_finite_elements")
              : 0;
      val.passed = v.at("passed").get<bool>();
      p.validation = val;
    }
    p.status = parse_status(field("status").get<std::string>());
    p.reason = j.value("reason", "");
    check_measured(p);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("point: ") + e.what());
  }
}

}  // namespace lb
