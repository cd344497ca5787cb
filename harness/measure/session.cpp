#include "harness/measure/session.hpp"

#include <iostream>

#include "harness/measure/interrupt.hpp"

namespace lb {

SessionOutcome run_session(const Plan& plan, const std::vector<Model>& models,
                           ResultsWriter& writer, const SessionConfig& config,
                           const std::function<Backend&(const PlannedPoint&)>& backend_for) {
  std::map<std::string, Point> already;
  for (const auto& p : writer.points()) already.emplace(p.key(), p);
  OomSweep sweep;
  for (const auto& [key, p] : already)
    if (p.status == Status::oom) sweep.record_oom(p);

  SessionOutcome outcome;
  RunLoop loop;
  loop.config = config.runner;
  loop.backend_for = backend_for;
  loop.stop = [&] { return interrupt::poll_stop() || outcome.write_error.has_value(); };

  double total_gflop = 0;
  int to_run = 0;
  for (const auto& pp : plan.points) {
    if (already.count(point_key(pp))) continue;
    total_gflop += pp.gflop;
    ++to_run;
  }
  Progress progress(config.progress, to_run, total_gflop);
  if (config.progress != Progress::Mode::quiet && !already.empty())
    std::cerr << "resuming " << writer.file().string() << ": " << already.size()
              << " points already measured, " << to_run << " to go\n";

  loop.pre_empt = [&](const PlannedPoint& pp) -> std::optional<Point> {
    if (auto it = already.find(point_key(pp)); it != already.end()) return it->second;
    if (plan.sweep_until_oom) {
      if (auto first = sweep.smaller_oom_batch(pp)) {
        const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
        Point p = describe_point(pp, problem);
        p.status = Status::oom;
        p.reason = oom_skip_reason(*first);
        return p;
      }
    }
    return std::nullopt;
  };
  loop.on_point = [&](const PlannedPoint& pp, const Point& p) {
    if (already.count(p.key())) return;  // resumed: already in the file
    if (p.status == Status::oom) sweep.record_oom(pp);
    try {
      writer.append(p);
    } catch (const OutputError& e) {
      outcome.write_error = e.what();
      return;
    }
    progress.point_done(p.key(), std::string(name(p.status)), pp.gflop);
  };

  loop.run(plan.points, config.benchmark_args);
  progress.finish();

  outcome.results = aggregate(writer.points(), models, config.device_limits);
  nlohmann::json model_records = nlohmann::json::array(),
                 boundary_records = nlohmann::json::array();
  for (const auto& r : outcome.results.models) model_records.push_back(to_json(r));
  for (const auto& b : outcome.results.boundaries) boundary_records.push_back(to_json(b));
  outcome.interrupted = interrupt::stop_requested().load();
  if (!outcome.write_error) {
    if (config.before_finish) config.before_finish(writer);
    try {
      writer.finish(outcome.interrupted ? "interrupted" : "complete", model_records,
                    boundary_records);
    } catch (const OutputError& e) {
      outcome.write_error = e.what();
    }
  }
  for (const auto& p : writer.points())
    if (p.status == Status::failed) ++outcome.failed;
  return outcome;
}

}  // namespace lb
