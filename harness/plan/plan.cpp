#include "harness/plan/plan.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "harness/plan/point_identity.hpp"
#include "harness/plan/suites.hpp"
#include "harness/util/comma_list.hpp"

namespace lb {

namespace {

template <class Range, class ToText>
std::string join(const Range& items, ToText to_text) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(to_text(item));
  return out;
}

template <class T>
void append_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::vector<const Model*> chosen_models(const RunRequest& request, const Suite& suite,
                                        const std::vector<Model>& available) {
  const auto known = [&] { return join(available, [](const Model& m) { return m.name; }); };
  std::vector<const Model*> models;
  if (!request.models.empty()) {
    for (const auto& wanted : request.models) {
      const Model* m = find_model(available, wanted);
      if (!m)
        throw std::invalid_argument("--model: unknown model '" + wanted + "'; known: " + known());
      append_unique(models, m);
    }
  } else if (!suite.models.empty()) {
    for (const auto& wanted : suite.models) {
      const Model* m = find_model(available, wanted);
      if (!m)
        throw std::invalid_argument("--suite: " + std::string(suite.name) + " needs model '" +
                                    wanted + "', which is not among the loaded models (" + known() +
                                    ")");
      models.push_back(m);
    }
  } else {
    for (const auto& m : available) models.push_back(&m);
  }
  return models;
}

std::vector<Precision> default_precisions(bool accelerator) {
  if (accelerator) return {std::begin(all_precisions), std::end(all_precisions)};
  return {Precision::fp32, Precision::bf16};
}

// The passes an op runs for all requested pass sets together. A training run measures the
// forward set's passes as well (batch norm's inference fwd is no part of its training step), so
// that it reports inference too.
bool op_runs_pass(const Op& op, const std::vector<PassSet>& sets, Pass pass) {
  for (PassSet set : sets)
    for (PassSet measured : {PassSet::fwd, set}) {
      const auto passes = passes_for(op, measured);
      if (std::find(passes.begin(), passes.end(), pass) != passes.end()) return true;
    }
  return false;
}

struct Group {
  std::vector<PlannedPoint> points;
  double gflop = 0;
};

}  // namespace

Plan expand_plan(const RunRequest& request, const std::vector<Model>& available_models,
                 const std::vector<DeviceTarget>& devices) {
  const Suite& suite = suite_named(request.suite);
  if (devices.empty()) throw std::invalid_argument("--device: no device to run on");
  for (int b : request.batches)
    if (b < 1)
      throw std::invalid_argument("--batch: '" + std::to_string(b) + "' is not a positive integer");

  const auto models = chosen_models(request, suite, available_models);
  const std::vector<PassSet> pass_sets =
      request.pass ? std::vector<PassSet>{*request.pass} : suite.pass_sets;

  std::vector<Group> groups;
  std::set<std::string> seen_devices;
  for (const auto& device : devices) {
    if (!seen_devices.insert(keyed_device(device.id, device.backend)).second) continue;
    const auto& batches = !request.batches.empty() ? request.batches
                          : device.accelerator     ? suite.gpu_batches
                                                   : suite.cpu_batches;
    const auto precisions =
        !request.precisions.empty() ? request.precisions : default_precisions(device.accelerator);
    // Memory-bound precisions the sums need and the request lacks -> the precisions needing them.
    std::map<Precision, std::string> substitute_for;
    for (Precision p : precisions)
      if (const Precision m = memory_bound_precision(p);
          std::find(precisions.begin(), precisions.end(), m) == precisions.end())
        substitute_for[m] += (substitute_for[m].empty() ? "" : ", ") + std::string(name(p));
    for (const Model* model : models) {
      std::set<Precision> substituted;  // planned once per model, with the first needing it
      for (Precision precision : precisions) {
        const Precision memory = memory_bound_precision(precision);
        const bool substitute = substitute_for.count(memory) && substituted.insert(memory).second;
        const std::string planned_for = substitute ? substitute_for[memory] : "";
        for (int batch : batches) {
          Group group;
          // Forward passes of every op first: an interrupted group still yields inference.
          for (Pass pass : all_passes)
            for (const Op& op : model->ops) {
              if (!op_runs_pass(op, pass_sets, pass)) continue;
              const double gflop = flop_count(problem_for(op, batch, pass, precision)) / 1e9;
              group.points.push_back({model, &op, batch, precision, pass, device.id,
                                      device.accelerator, device.backend, gflop, ""});
              group.gflop += gflop;
              if (substitute && is_memory_bound(op.kind))
                group.points.push_back(
                    {model, &op, batch, memory, pass, device.id, device.accelerator, device.backend,
                     flop_count(problem_for(op, batch, pass, memory)) / 1e9, planned_for});
            }
          groups.push_back(std::move(group));
        }
      }
    }
  }
  // Cheapest first; equal costs keep the device/model/precision/batch order above. A model's
  // work grows with the batch, so each sweep's batches stay ascending.
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.gflop < b.gflop; });

  Plan plan;
  plan.sweep_until_oom = suite.sweep_until_oom;
  for (auto& group : groups)
    for (auto& point : group.points) plan.points.push_back(std::move(point));
  return plan;
}

std::vector<int> parse_batch_list(std::string_view text, std::string_view label) {
  std::vector<int> batches;
  for (std::string_view item : split_comma_list(text, label)) {
    int value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size() || value < 1)
      throw std::invalid_argument(std::string(label) + ": '" + std::string(item) +
                                  "' is not a positive integer");
    append_unique(batches, value);
  }
  return batches;
}

std::vector<Precision> parse_precision_list(std::string_view text, std::string_view label) {
  std::vector<Precision> precisions;
  for (std::string_view item : split_comma_list(text, label)) {
    const auto p = parse_precision(item);
    if (!p)
      throw std::invalid_argument(
          std::string(label) + ": unknown precision '" + std::string(item) +
          "'; known: " + join(all_precisions, [](Precision q) { return name(q); }));
    append_unique(precisions, *p);
  }
  return precisions;
}

}  // namespace lb
