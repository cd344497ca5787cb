#include "harness/measure/session.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "harness/measure/interrupt.hpp"

namespace lb {
namespace {

// The results file's records of the model sums and the boundaries.
std::pair<nlohmann::json, nlohmann::json> model_records(const Aggregation& results) {
  nlohmann::json models = nlohmann::json::array(), boundaries = nlohmann::json::array();
  for (const auto& r : results.models) models.push_back(to_json(r));
  for (const auto& b : results.boundaries) boundaries.push_back(to_json(b));
  return {models, boundaries};
}

// A point stuck in a call that does not return: recorded failed, so that --resume goes past it
// (a call that hung once, a deadlocked library or a hung driver, would hang every resume), and
// the file finished "interrupted" with what was measured. Runs on the watchdog's thread while
// the point's own thread is stuck, and ends the process.
[[noreturn]] void stop_at_stuck_point(const PlannedPoint& pp, const PointWatchdog& watchdog,
                                      ResultsWriter& writer, const std::vector<Model>& models,
                                      const SessionConfig& config) {
  Point p = describe_point(pp, problem_for(*pp.op, pp.batch, pp.pass, pp.precision));
  p.cache = config.runner.case_options.cache == CacheMode::cold ? "cold" : "warm";
  p.status = Status::failed;
  std::ostringstream why;
  why << "did not return within " << watchdog.bound_s() + watchdog.grace_s()
      << " s, the point time bound of " << watchdog.bound_s()
      << " s (--point-timeout) and the grace after it: stuck in a library call or the set-up; "
         "the run was stopped";
  p.reason = why.str();
  std::cerr << "\nlayerbench run: " << p.key() << " " << p.reason << ".\n";
  try {
    writer.append(p);
    const auto [model_json, boundary_json] =
        model_records(aggregate(writer.points(), models, config.device_limits));
    writer.finish("interrupted", model_json, boundary_json);
    std::cerr << "  It is recorded failed in " << writer.file().string()
              << "; `layerbench run --resume " << writer.file().string()
              << "` measures the points after it.\n";
  } catch (const OutputError& e) {
    std::cerr << "layerbench run: " << e.what() << "\n  The points measured before it are in "
              << writer.file().string() << " and its journal.\n";
  }
  std::cerr.flush();
  std::_Exit(config.stuck_point_exit_code);
}

}  // namespace

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

  std::optional<PointWatchdog> watchdog;
  if (config.point_time_bound_s > 0) {
    const double bound_s = config.point_time_bound_s;
    watchdog.emplace(bound_s, point_stuck_grace_s(bound_s), [&](const PlannedPoint& pp) {
      stop_at_stuck_point(pp, *watchdog, writer, models, config);
    });
    loop.watchdog = &*watchdog;
  }
  loop.run(plan.points, config.benchmark_args);
  progress.finish();

  outcome.results = aggregate(writer.points(), models, config.device_limits);
  const auto [model_json, boundary_json] = model_records(outcome.results);
  outcome.interrupted = interrupt::stop_requested().load();
  if (!outcome.write_error) {
    if (config.before_finish) config.before_finish(writer);
    try {
      writer.finish(outcome.interrupted ? "interrupted" : "complete", model_json, boundary_json);
    } catch (const OutputError& e) {
      outcome.write_error = e.what();
    }
  }
  for (const auto& p : writer.points())
    if (p.status == Status::failed) ++outcome.failed;
  return outcome;
}

}  // namespace lb
