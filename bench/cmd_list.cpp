// `layerbench list`: the catalogue's operations with their accounting (FLOPs, bytes,
// arithmetic intensity, memory) at a batch, precision and pass set, as a table or as JSON; with
// --suites, the suites `run --suite` takes (harness/plan/suites.hpp), as lines or as JSON.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/commands.hpp"
#include "bench/model_flags.hpp"
#include "harness/api/shape_json.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"
#include "harness/plan/suites.hpp"
#include "harness/util/input_error.hpp"

namespace lb::cli {
namespace {

constexpr const char* flop_convention = "FLOPs = 2 x multiply-adds";

struct ListOptions {
  std::vector<std::string> models;
  int batch = 1;
  std::string precision = "fp32";
  std::string pass_set = "fwd";
  bool json = false, suites = false;
  std::vector<std::string> model_files;
};

// One line of the listing: an op at one pass, with the same fields as a results point.
struct Row {
  const Op* op;
  Pass pass;
  Problem problem;
  double flop, bytes;
  std::uint64_t memory;
};

std::vector<Row> rows_for(const Model& model, int batch, Precision precision, PassSet set) {
  std::vector<Row> rows;
  for (const auto& op : model.ops)
    for (Pass pass : passes_for(op, set)) {
      auto problem = problem_for(op, batch, pass, precision);
      rows.push_back(
          {&op, pass, problem, flop_count(problem), min_bytes(problem), memory_bytes(problem)});
    }
  return rows;
}

nlohmann::json row_json(const Model& model, const Row& row, int batch) {
  return {{"model", model.name},
          {"op", row.op->id},
          {"kind", name(row.op->kind)},
          {"layers", row.op->layers},
          {"count", row.op->count()},
          {"batch", batch},
          {"precision", name(row.problem.precision)},
          {"pass", name(row.pass)},
          {"shape", shape_json(row.problem)},
          {"shape_text", describe(row.problem)},
          {"gflop", row.flop / 1e9},
          {"bytes", row.bytes},
          {"intensity", row.flop / row.bytes},
          {"memory_bytes", row.memory}};
}

// Up to three layer names, else the first and the last; --json lists them all.
std::string layers_text(const Op& op) {
  const auto& l = op.layers;
  if (l.size() > 3)
    return l.front() + " ... " + l.back() + " (" + std::to_string(l.size()) + " layers)";
  std::string out;
  for (const auto& layer : l) out += (out.empty() ? "" : ", ") + layer;
  return out;
}

void print_table(std::ostream& out, const Model& model, const std::vector<Row>& rows,
                 const ModelTotals& t, int batch, Precision precision, PassSet set) {
  out << model.name << ": " << model.title << " at batch " << batch << ", " << name(precision)
      << ", " << (set == PassSet::fwd ? "forward" : "training step") << "\n"
      << "  file " << model.file << "\n  architecture: " << model.source << "\n"
      << "  " << flop_convention
      << " (0 for the memory-bound kinds: their cost is the bytes they move); GFLOP, MB and "
         "memory are for one layer of the shape, totals count every layer\n";
  out << std::left << "  " << std::setw(26) << "op" << std::setw(11) << "kind" << std::setw(12)
      << "pass" << std::setw(52) << "shape" << std::right << std::setw(6) << "count"
      << std::setw(10) << "GFLOP" << std::setw(10) << "MB" << std::setw(9) << "FLOP/B"
      << std::setw(10) << "mem MiB"
      << "  layers\n";
  const Op* previous = nullptr;
  for (const auto& row : rows) {
    out << std::left << "  " << std::setw(26) << row.op->id << std::setw(11) << name(row.op->kind)
        << std::setw(12) << name(row.pass) << std::setw(52) << describe(row.problem) << std::right
        << std::setw(6) << row.op->count() << std::fixed << std::setprecision(3) << std::setw(10)
        << row.flop / 1e9 << std::setw(10) << row.bytes / 1e6 << std::setprecision(1)
        << std::setw(9) << row.flop / row.bytes << std::setw(10)
        << static_cast<double>(row.memory) / (1024.0 * 1024.0) << "  "
        << (row.op == previous ? "" : layers_text(*row.op)) << "\n";
    previous = row.op;
  }
  out << std::setprecision(3) << "  total: " << t.flop / 1e9 << " GFLOP per batch of " << batch
      << ", " << t.flop_per_image / 1e9 << " GFLOP per image ("
      << (set == PassSet::fwd ? "forward" : "forward + backward-data + backward-weights") << "); "
      << t.ops << " distinct shapes for " << t.layers << " layers\n\n";
  out.unsetf(std::ios::fixed);
}

template <class T>
std::string comma_joined(const std::vector<T>& items) {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? "," : "") << items[i];
  return out.str();
}

nlohmann::json suite_json(const Suite& suite) {
  nlohmann::json passes = nlohmann::json::array();
  for (PassSet set : suite.pass_sets) passes.push_back(name(set));
  return {{"name", suite.name},
          {"default", &suite == &default_suite()},
          {"models", suite.models},
          {"passes", passes},
          {"cpu_batches", suite.cpu_batches},
          {"gpu_batches", suite.gpu_batches},
          {"sweep_until_oom", suite.sweep_until_oom},
          {"rounds", suite.sampling.rounds},
          {"max_time_per_point_s", suite.sampling.max_time_s},
          {"min_time_per_point_s", suite.sampling.min_time_s},
          {"warmup_min_s", suite.sampling.warmup_min_s}};
}

void print_suite(std::ostream& out, const Suite& s) {
  std::vector<std::string> passes;
  for (PassSet set : s.pass_sets) passes.emplace_back(name(set));
  out << s.name << (&s == &default_suite() ? " (default)" : "") << ": "
      << (s.models.empty() ? "every model" : comma_joined(s.models)) << "; " << comma_joined(passes)
      << "; batches " << comma_joined(s.cpu_batches) << " on CPUs, " << comma_joined(s.gpu_batches)
      << " on GPUs"
      << (s.sweep_until_oom ? " (each sweep stops at its first out-of-memory batch)" : "") << "; "
      << s.sampling.rounds << " rounds, each sampling a point " << s.sampling.min_time_s << " to "
      << s.sampling.max_time_s << " s after at least " << s.sampling.warmup_min_s
      << " s of warm-up\n";
}

int list_suites(bool json) {
  nlohmann::json all = nlohmann::json::array();
  for (const Suite& suite : suites()) {
    if (json)
      all.push_back(suite_json(suite));
    else
      print_suite(std::cout, suite);
  }
  if (json) std::cout << nlohmann::json{{"suites", all}}.dump(2) << "\n";
  return exit_ok;
}

int run_list(const ListOptions& o) {
  if (o.suites) return list_suites(o.json);
  const auto precision = parse_precision(o.precision);
  if (!precision)
    throw InputError("--precision " + o.precision +
                     ": unknown precision (expected fp32, tf32, fp16, bf16 or fp8)");
  const auto set = parse_pass_set(o.pass_set);
  if (!set) throw InputError("--pass " + o.pass_set + ": unknown pass set (expected fwd or train)");
  if (o.batch < 1)
    throw InputError("--batch " + std::to_string(o.batch) + ": must be a positive integer");

  auto files = builtin_model_files();
  files.insert(files.end(), o.model_files.begin(), o.model_files.end());
  const std::vector<Model> models = load_models(files);

  std::vector<const Model*> chosen;
  if (o.models.empty()) {
    for (const auto& m : models) chosen.push_back(&m);
  }
  for (const auto& wanted : o.models) {
    const Model* m = find_model(models, wanted);
    if (!m) {
      std::string known;
      for (const auto& k : models) known += (known.empty() ? "" : ", ") + k.name;
      throw InputError("--model " + wanted + ": unknown model (known: " + known + ")");
    }
    if (std::find(chosen.begin(), chosen.end(), m) == chosen.end()) chosen.push_back(m);
  }
  for (const Model* m : chosen)
    for (const auto& op : m->ops)
      if (auto overflow = indexing_overflow(op, o.batch))
        throw InputError("--batch " + std::to_string(o.batch) + ": " + m->name + " op " + op.id +
                         ": " + *overflow);

  nlohmann::json listing = {{"flop_convention", flop_convention},
                            {"batch", o.batch},
                            {"precision", name(*precision)},
                            {"pass_set", name(*set)},
                            {"models", nlohmann::json::array()}};
  for (const Model* m : chosen) {
    const auto rows = rows_for(*m, o.batch, *precision, *set);
    const auto t = totals(*m, o.batch, *set);
    if (!o.json) {
      print_table(std::cout, *m, rows, t, o.batch, *precision, *set);
      continue;
    }
    nlohmann::json points = nlohmann::json::array();
    for (const auto& row : rows) points.push_back(row_json(*m, row, o.batch));
    listing["models"].push_back({{"model", m->name},
                                 {"title", m->title},
                                 {"source", m->source},
                                 {"file", m->file},
                                 {"points", points},
                                 {"totals",
                                  {{"gflop", t.flop / 1e9},
                                   {"gflop_per_image", t.flop_per_image / 1e9},
                                   {"ops", t.ops},
                                   {"layers", t.layers}}}});
  }
  if (o.json)  // a file name that is not UTF-8 is shown with U+FFFD, not a type_error
    std::cout << listing.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return exit_ok;
}

}  // namespace

void add_list(CLI::App& app, Action& action) {
  auto options = std::make_shared<ListOptions>();
  auto* sub = app.add_subcommand(
      "list", "List the models' operations with FLOPs, bytes, intensity and memory");
  const auto model_flags =
      add_model_flags(*sub, options->models, options->model_files, options->precision,
                      options->pass_set, "fp32, tf32, fp16, bf16 or fp8 (default fp32)");
  auto* batch = sub->add_option("--batch", options->batch, "Batch size (default 1)");
  sub->add_flag("--json", options->json, "Machine-readable output, fields as in results points");
  auto* suites_flag = sub->add_flag(
      "--suites", options->suites,
      "The suites `run --suite` takes instead: models, passes, batches, rounds, sampling");
  for (CLI::Option* option : model_flags) suites_flag->excludes(option);
  suites_flag->excludes(batch);
  sub->callback([&action, options] {
    action = [options] { return report_input_errors("list", [&] { return run_list(*options); }); };
  });
}

}  // namespace lb::cli
