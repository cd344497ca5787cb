#include "harness/results/aggregate.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace lb {

namespace {

constexpr PassSet all_pass_sets[] = {PassSet::fwd, PassSet::train};

// The points of one model on one device at one precision and batch, by op id and pass name.
using OpPoints = std::map<std::pair<std::string, Pass>, const Point*>;

struct Combo {
  const Model* model = nullptr;
  std::string device, backend;  // backend: empty for the device's original one
  Precision precision = Precision::fp32;
  std::map<int, OpPoints> by_batch;
  bool has_backward = false;
  bool asked = false;  // some point was planned for this precision's own sums
};

// Higher is worse; the worst status of a model's points decides its own.
int severity(const std::string& status) {
  if (status == "failed") return 4;
  if (status == "oom") return 3;
  if (status == "unsupported") return 2;
  if (status == "incomplete") return 1;
  return 0;
}

std::string op_label(const Op& op, Pass pass) {
  std::string text = op.id + " " + std::string(name(pass));
  if (!op.layers.empty()) {
    text += " (" + op.layers.front();
    if (op.layers.size() > 1) text += " and " + std::to_string(op.layers.size() - 1) + " more";
    text += ")";
  }
  return text;
}

KindTimes kind_times(const std::map<std::string, double>& group_ms, double total_ms) {
  KindTimes k;
  for (std::string_view group : op_kind_groups) {
    const auto it = group_ms.find(std::string(group));
    const double ms = it == group_ms.end() ? 0 : it->second;
    k.ms[std::string(group)] = ms;
    k.share[std::string(group)] = ms / total_ms;
  }
  return k;
}

// The eager sum less the after_conv batch norms.
FoldedEstimate fold(const Model& model, std::map<std::string, double> group_ms, double time_ms,
                    const std::map<std::string, double>& op_ms, int batch, double gflop) {
  FoldedEstimate f;
  for (const Op& op : model.ops) {
    if (op.kind != OpKind::batch_norm || !op.after_conv) continue;
    f.folded_ops.push_back(op.id);
    const double ms = op_ms.at(op.id);
    time_ms -= ms;
    group_ms[std::string(kind_group(op.kind))] -= ms;
  }
  f.time_ms = time_ms;
  f.images_per_s = batch / (time_ms / 1e3);
  f.tflops = gflop / time_ms;
  f.kinds = kind_times(group_ms, time_ms);
  return f;
}

// The sum's energy and images per joule from each op's energy (count x joules per run), and the
// folded estimate's without the folded ops'.
void add_energy(ModelResult& r, const std::map<std::string, double>& op_j) {
  double joules = 0;
  for (const auto& [op, j] : op_j) joules += j;
  if (joules <= 0) return;
  r.energy_j = joules;
  r.images_per_joule = r.batch / joules;
  if (!r.folded) return;
  for (const std::string& id : r.folded->folded_ops) joules -= op_j.at(id);
  if (joules > 0) r.folded->images_per_joule = r.batch / joules;
}

// `substitutes`: the same model's points on the same device and backend at this batch in the
// memory-bound precision (memory_bound_precision), when it differs from the combo's; else null.
ModelResult sum_model(const Combo& combo, PassSet set, int batch, const OpPoints& points,
                      const OpPoints* substitutes,
                      const std::map<std::string, DeviceLimits>& devices) {
  ModelResult r;
  r.model = combo.model->name;
  r.title = combo.model->title;
  r.device = combo.device;
  r.backend = combo.backend;
  r.precision = std::string(name(combo.precision));
  r.pass = set;
  r.batch = batch;

  double time_ms = 0, uncertain_ms = 0;
  std::map<std::string, double> kind_ms, group_ms, op_ms, op_j;
  int expected = 0, missing = 0, without_energy = 0;
  std::string first_missing;
  const OpPoints none;
  for (const Op& op : combo.model->ops) {
    const Precision at = precision_in_model(op.kind, combo.precision);
    r.layer_precisions[std::string(name(op.kind))] = std::string(name(at));
    const OpPoints& source = at == combo.precision ? points : substitutes ? *substitutes : none;
    // A substituted op's label says the precision its point is in.
    const auto label = [&](Pass pass) {
      return op_label(op, pass) + (at == combo.precision ? "" : " in " + std::string(name(at)));
    };
    for (Pass pass : passes_for(op, set)) {
      ++expected;
      r.gflop += op.count() * flop_count(problem_for(op, batch, pass, at)) / 1e9;
      const auto it = source.find({op.id, pass});
      if (it == source.end()) {
        if (missing++ == 0) first_missing = label(pass);
        continue;
      }
      const Point& p = *it->second;
      const std::string status(name(p.status));
      if (severity(status) > severity(r.status)) {
        r.status = status;
        r.reason = status + ": " + label(pass) + ": " + p.reason;
      }
      if (p.status != Status::ok) continue;
      if (!p.timing) throw std::invalid_argument("point " + p.key() + ": status ok without timing");
      if (p.timing->contended) ++r.contended_points;
      if (p.timing->unstable) ++r.unstable_points;
      if (p.telemetry && p.telemetry->throttled) ++r.throttled_points;
      const double ms = op.count() * p.timing->median_s * 1e3;
      time_ms += ms;
      uncertain_ms += ms * std::max(p.timing->noise, p.timing->uncertainty);
      kind_ms[std::string(name(op.kind))] += ms;
      group_ms[std::string(kind_group(op.kind))] += ms;
      op_ms[op.id] += ms;
      const auto joules =
          p.telemetry ? joules_per_run(*p.telemetry, p.timing->median_s) : std::nullopt;
      if (!joules) ++without_energy;
      op_j[op.id] += op.count() * joules.value_or(0);
    }
  }
  if (missing > 0 && severity("incomplete") > severity(r.status)) {
    r.status = "incomplete";
    r.reason = "incomplete: " + std::to_string(missing) + " of " + std::to_string(expected) +
               " points not measured, first " + first_missing;
  }
  if (r.status != "ok") return r;

  r.time_ms = time_ms;
  r.uncertainty = uncertain_ms / time_ms;
  r.unstable = *r.uncertainty >= unstable_sum_uncertainty;
  r.images_per_s = batch / (time_ms / 1e3);
  r.tflops = r.gflop / time_ms;  // GFLOP per ms is TFLOP per s
  if (const auto d = devices.find(r.device); d != devices.end())
    if (const auto peak = d->second.peak_tflops.find(combo.precision);
        peak != d->second.peak_tflops.end() && peak->second > 0)
      r.peak_fraction = *r.tflops / peak->second;
  for (const auto& [kind, ms] : kind_ms) r.time_share[kind] = ms / time_ms;
  r.kinds = kind_times(group_ms, time_ms);
  if (set == PassSet::fwd) r.folded = fold(*combo.model, group_ms, time_ms, op_ms, batch, r.gflop);
  if (without_energy == 0) add_energy(r, op_j);
  return r;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

Aggregation aggregate(const std::vector<Point>& points, const std::vector<Model>& models,
                      const std::map<std::string, DeviceLimits>& devices) {
  // Combos in output order: model (catalogue order), device and backend (first seen), precision.
  std::vector<std::string> device_order;
  std::map<std::tuple<size_t, size_t, int>, Combo> combos;
  for (const Point& p : points) {
    const Model* model = find_model(models, p.model);
    if (!model)
      throw std::invalid_argument("point " + p.key() + ": model '" + p.model +
                                  "' is not among the loaded models");
    if (std::none_of(model->ops.begin(), model->ops.end(),
                     [&](const Op& op) { return op.id == p.op; }))
      throw std::invalid_argument("point " + p.key() + ": model '" + p.model + "' has no op '" +
                                  p.op + "'");
    const std::string where = keyed_device(p.device, p.backend);
    auto d = std::find(device_order.begin(), device_order.end(), where);
    if (d == device_order.end()) d = device_order.insert(d, where);
    Combo& combo =
        combos[{static_cast<size_t>(model - models.data()),
                static_cast<size_t>(d - device_order.begin()), static_cast<int>(p.precision)}];
    combo.model = model;
    combo.device = p.device;
    if (where != p.device) combo.backend = p.backend;
    combo.precision = p.precision;
    combo.by_batch[p.batch][{p.op, p.pass}] = &p;
    combo.has_backward |= p.pass != Pass::fwd;
    combo.asked |= p.notes.find(planned_for_note) == p.notes.end();
  }

  Aggregation out;
  for (const auto& [order, combo] : combos) {
    if (!combo.asked) continue;
    // The same model, device and backend in the precision of its memory-bound layers.
    const Precision memory = memory_bound_precision(combo.precision);
    const auto other =
        memory == combo.precision
            ? combos.end()
            : combos.find({std::get<0>(order), std::get<1>(order), static_cast<int>(memory)});
    for (PassSet set : all_pass_sets) {
      if (set == PassSet::train && !combo.has_backward) continue;
      const size_t first = out.models.size();
      for (const auto& [batch, op_points] : combo.by_batch) {
        const OpPoints* substitutes = nullptr;
        if (other != combos.end())
          if (const auto b = other->second.by_batch.find(batch); b != other->second.by_batch.end())
            substitutes = &b->second;
        out.models.push_back(sum_model(combo, set, batch, op_points, substitutes, devices));
      }

      // This sweep's results, batches ascending: oom batches learn the largest ok batch below.
      const auto sweep = out.models.begin() + static_cast<std::ptrdiff_t>(first);
      std::optional<Boundary> boundary;
      for (auto r = sweep; r != out.models.end(); ++r) {
        if (r->status != "oom") continue;
        const ModelResult* fitting = nullptr;
        for (auto f = sweep; f != r; ++f)
          if (f->status == "ok") fitting = &*f;
        if (fitting) {
          r->largest_fitting_batch = fitting->batch;
          const int steps = (r->batch + fitting->batch - 1) / fitting->batch;
          r->accumulation = Accumulation{fitting->batch, steps, *fitting->images_per_s};
        }
        if (!boundary) {
          boundary = Boundary{combo.model->name,        combo.device, r->precision, set,
                              r->largest_fitting_batch, r->batch,     std::nullopt};
          if (const auto d = devices.find(combo.device); d != devices.end())
            boundary->memory_limit_bytes = d->second.memory_bytes;
        }
      }
      if (boundary) out.boundaries.push_back(*boundary);
    }
  }
  return out;
}

nlohmann::json to_json(const ModelResult& r) {
  nlohmann::json j = {{"model", r.model},
                      {"title", r.title},
                      {"device", r.device},
                      {"precision", r.precision},
                      {"batch", r.batch},
                      {"pass", name(r.pass)},
                      {"status", r.status},
                      {"reason", r.reason},
                      {"time_ms", optional_json(r.time_ms)},
                      {"images_per_s", optional_json(r.images_per_s)},
                      {"gflop", r.gflop},
                      {"tflops", optional_json(r.tflops)},
                      {"peak_fraction", optional_json(r.peak_fraction)},
                      {"time_share", nullptr},
                      {"estimate", r.estimate},
                      {"kind_ms", nullptr},
                      {"kind_share", nullptr},
                      {"folded", nullptr},
                      {"largest_fitting_batch", nullptr},
                      {"accumulation", nullptr},
                      {"label", r.label},
                      {"layer_precisions", r.layer_precisions},
                      {"contended_points", r.contended_points},
                      {"unstable_points", r.unstable_points},
                      {"uncertainty", optional_json(r.uncertainty)},
                      {"unstable", r.unstable},
                      {"throttled_points", r.throttled_points},
                      {"energy_j", optional_json(r.energy_j)},
                      {"images_per_joule", optional_json(r.images_per_joule)}};
  if (!r.backend.empty()) j["backend"] = r.backend;
  if (!r.time_share.empty()) j["time_share"] = r.time_share;
  if (r.kinds) j["kind_ms"] = r.kinds->ms, j["kind_share"] = r.kinds->share;
  if (r.folded)
    j["folded"] = {{"estimate", "folded"},
                   {"folded_ops", r.folded->folded_ops},
                   {"time_ms", r.folded->time_ms},
                   {"images_per_s", r.folded->images_per_s},
                   {"tflops", r.folded->tflops},
                   {"kind_ms", r.folded->kinds.ms},
                   {"kind_share", r.folded->kinds.share},
                   {"images_per_joule", optional_json(r.folded->images_per_joule)}};
  if (r.largest_fitting_batch) j["largest_fitting_batch"] = *r.largest_fitting_batch;
  if (r.accumulation)
    j["accumulation"] = {{"batch", r.accumulation->batch},
                         {"steps", r.accumulation->steps},
                         {"images_per_s", r.accumulation->images_per_s}};
  return j;
}

nlohmann::json to_json(const Boundary& b) {
  nlohmann::json j = {{"model", b.model},
                      {"device", b.device},
                      {"precision", b.precision},
                      {"pass", name(b.pass)},
                      {"largest_fitting_batch", nullptr},
                      {"first_oom_batch", b.first_oom_batch},
                      {"memory_limit_bytes", nullptr}};
  if (b.largest_fitting_batch) j["largest_fitting_batch"] = *b.largest_fitting_batch;
  if (b.memory_limit_bytes) j["memory_limit_bytes"] = *b.memory_limit_bytes;
  return j;
}

}  // namespace lb
