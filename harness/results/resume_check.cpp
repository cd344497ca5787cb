#include "harness/results/resume_check.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "harness/api/shape_json.hpp"
#include "harness/model/accounting.hpp"
#include "harness/util/json_fields.hpp"

namespace lb {
namespace {

[[noreturn]] void refuse(const std::string& file, const std::string& field,
                         const std::string& problem) {
  throw ResultsError(file + ": " + field + ": " + problem + "; " + resume_refused_advice);
}

std::string quoted(const std::string& text) { return nlohmann::json(text).dump(); }

// The plan's models, each once, in plan order.
std::vector<const Model*> plan_models(const Plan& plan) {
  std::vector<const Model*> models;
  for (const PlannedPoint& pp : plan.points)
    if (std::find(models.begin(), models.end(), pp.model) == models.end())
      models.push_back(pp.model);
  return models;
}

void check_model_files(const nlohmann::json& settings, const std::string& file, const Plan& plan) {
  const std::vector<const Model*> models = plan_models(plan);
  const JsonField recorded = JsonField(settings, file, "settings")["model_files"];
  recorded.require_object("an object of model files by model name");
  for (const auto& item : recorded.json().items()) {
    const JsonField entry = recorded[item.key()];
    entry.require_object();
    const std::string path = entry["file"].string(), sha256 = entry["sha256"].string();
    const auto it = std::find_if(models.begin(), models.end(),
                                 [&](const Model* m) { return m->name == item.key(); });
    if (it == models.end())
      refuse(file, entry.path(),
             "the plan its settings make (settings.suite, settings.models) has no model " +
                 quoted(item.key()) + " now, which the file began measuring (from " + path + ")");
    if ((*it)->file_sha256 != sha256)
      refuse(file, entry.path() + ".sha256",
             (*it)->file + " has changed since the file was begun (SHA-256 " + sha256 + " then, " +
                 (*it)->file_sha256 + " now)");
  }
  for (const Model* model : models)
    if (!recorded.has(model->name))
      refuse(file, recorded.path(),
             "no record of model " + quoted(model->name) + " (" + model->file +
                 "), which the plan its settings make measures");
}

// One part of a point's identity: its field, and its value in a point and in a planned point.
struct IdentityPart {
  std::string field;
  std::string point_value;
  std::function<std::string(const PlannedPoint&)> planned_value;
};

// Why a point whose key the plan lacks is outside it: the first part of its identity no planned
// point shares with the parts before it, with the values the plan has there.
std::string outside_plan(const Point& p, const Plan& plan) {
  const std::string keyed = keyed_device(p.device, p.backend);
  const bool device_planned =
      std::any_of(plan.points.begin(), plan.points.end(),
                  [&](const PlannedPoint& pp) { return pp.device == p.device; });
  const std::vector<IdentityPart> parts = {
      {"model", p.model, [](const PlannedPoint& pp) { return pp.model->name; }},
      {"op", p.op, [](const PlannedPoint& pp) { return pp.op->id; }},
      {"batch", std::to_string(p.batch),
       [](const PlannedPoint& pp) { return std::to_string(pp.batch); }},
      {"precision", std::string(name(p.precision)),
       [](const PlannedPoint& pp) { return std::string(name(pp.precision)); }},
      {"pass", std::string(name(p.pass)),
       [](const PlannedPoint& pp) { return std::string(name(pp.pass)); }},
      {device_planned ? "backend" : "device", keyed,
       [](const PlannedPoint& pp) { return keyed_device(pp.device, pp.backend); }}};
  std::vector<const PlannedPoint*> candidates;
  for (const PlannedPoint& pp : plan.points) candidates.push_back(&pp);
  for (std::size_t part = 0; part < parts.size(); ++part) {
    std::vector<const PlannedPoint*> matching;
    std::vector<std::string> values;
    for (const PlannedPoint* pp : candidates) {
      const std::string value = parts[part].planned_value(*pp);
      if (value == parts[part].point_value) matching.push_back(pp);
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
    if (!matching.empty()) {
      candidates = std::move(matching);
      continue;
    }
    constexpr std::size_t shown = 8;
    std::string list;
    for (std::size_t i = 0; i < values.size() && i < shown; ++i)
      list += (i ? ", " : "") + values[i];
    if (values.size() > shown) list += ", ...";
    const std::string& field = parts[part].field;
    const std::string value = part + 1 == parts.size()
                                  ? "device " + quoted(p.device) + " with backend " +
                                        quoted(p.backend) + " (" + keyed + ")"
                              : field == "batch" ? parts[part].point_value
                                                 : quoted(parts[part].point_value);
    return field + ": " + value + " is not in the plan its settings make (" +
           (part == 0 ? "" : "for this " + parts[part - 1].field + " ") + "it has " + list + ")";
  }
  return "not in the plan its settings make";  // each part matched: unreachable for a key
}

// A point in the plan must be the planned one: same device and backend, and the shape the model
// file gives the op now.
void check_point(const Point& p, const PlannedPoint& pp, const std::string& field,
                 const std::string& file, const std::string& cache, const PointRefusal& refusal) {
  const auto differs = [&](const std::string& part, const std::string& was,
                           const std::string& planned) {
    refuse(file, field + "." + part,
           was + " is not what the plan its settings make measures (" + planned + ")");
  };
  if (p.device != pp.device) differs("device", quoted(p.device), quoted(pp.device));
  if (!measured_by(p.backend, pp.backend))
    differs("backend", quoted(p.backend), quoted(pp.backend));
  if (p.kind != pp.op->kind)
    differs("kind", quoted(std::string(name(p.kind))), quoted(std::string(name(pp.op->kind))));
  if (p.layers != pp.op->layers)
    differs("layers", nlohmann::json(p.layers).dump(), nlohmann::json(pp.op->layers).dump());
  if (p.count != pp.op->count())
    differs("count", std::to_string(p.count), std::to_string(pp.op->count()));
  const nlohmann::json shape = shape_json(problem_for(*pp.op, pp.batch, pp.pass, pp.precision));
  if (p.shape != shape) differs("shape", p.shape.dump(), "the model file's " + shape.dump());
  if (p.timing && p.cache != cache) differs("timing.cache", quoted(p.cache), quoted(cache));
  if (p.status == Status::unsupported || !refusal) return;
  if (const std::optional<std::string> why = refusal(pp))
    refuse(file, field + ".status",
           quoted(std::string(name(p.status))) + " where backend " + quoted(pp.backend) +
               " records \"unsupported\": " + *why);
}

}  // namespace

void check_resumable_status(const nlohmann::json& document, const std::string& file) {
  const auto it = document.find("status");
  if (it == document.end())
    refuse(file, "status",
           "missing; a file layerbench writes says \"incomplete\", "
           "\"interrupted\" or \"complete\"");
  if (*it == "complete") throw ResultsError(file + " is already complete; nothing to resume");
  if (*it != "incomplete" && *it != "interrupted")
    refuse(file, "status",
           it->dump() +
               " is not a status layerbench writes (\"incomplete\", \"interrupted\" "
               "or \"complete\")");
}

nlohmann::json model_files_json(const Plan& plan) {
  nlohmann::json files = nlohmann::json::object();
  for (const Model* model : plan_models(plan))
    files[model->name] = {{"file", model->file}, {"sha256", model->file_sha256}};
  return files;
}

ResumeRecord check_resumable(const LoadedResults& previous, const std::string& file,
                             const Plan& plan, const std::string& cache,
                             const PointRefusal& refusal) {
  const nlohmann::json& settings = previous.document.at("settings");
  const bool hashes = settings.contains("model_files");
  try {
    if (hashes) check_model_files(settings, file, plan);
  } catch (const FieldError& e) {
    throw ResultsError(e.what() + std::string("; ") + resume_refused_advice);
  }
  std::map<std::string, const PlannedPoint*> planned;
  for (const PlannedPoint& pp : plan.points) planned.emplace(point_key(pp), &pp);
  for (std::size_t i = 0; i < previous.points.size(); ++i) {
    const Point& p = previous.points[i];
    const std::string field = "points[" + std::to_string(i) + "] (" + p.key() + ")";
    const auto it = planned.find(p.key());
    if (it == planned.end()) refuse(file, field, outside_plan(p, plan));
    check_point(p, *it->second, field, file, cache, refusal);
  }
  return hashes ? ResumeRecord::exact : ResumeRecord::no_hashes;
}

}  // namespace lb
