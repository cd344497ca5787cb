#include "harness/measure/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
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
    // A point measured in an earlier round keeps that round's figures.
    if (!writer.has_point(p.key())) writer.append(p);
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

nlohmann::json time_split_json(const PhaseSeconds& spent, double wall_s, int rounds) {
  return {{"rounds", rounds},
          {"measuring_s", wall_s},
          {"refusal_s", spent.refusal},
          {"inputs_s", spent.inputs},
          {"prepare_s", spent.prepare},
          {"sampling_s", spent.sampling},
          {"validation_s", spent.validation}};
}

std::string time_split_text(const PhaseSeconds& spent, double wall_s) {
  char text[256];
  std::snprintf(text, sizeof text,
                "time: %.1f s measuring: sampling %.1f s, prepare (buffers, algorithm choice) "
                "%.1f s, inputs %.1f s, validation %.1f s, refusals %.1f s",
                wall_s, spent.sampling, spent.prepare, spent.inputs, spent.validation,
                spent.refusal);
  return text;
}

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

  const bool resuming = !already.empty();
  const std::size_t resumed = already.size();
  // Points a backend cannot run are asked about first and listed once per backend and reason;
  // the first round records them in their place in the plan, without a progress line.
  std::map<std::string, Point> refused;
  std::map<std::string, std::map<std::string, int>> refusals;  // keyed device -> reason -> points
  for (const auto& pp : plan.points) {
    if (already.count(point_key(pp))) continue;
    std::optional<Point> p;
    try {
      p = refused_point(pp, backend_for(pp), config.runner, &loop.spent);
    } catch (const std::exception&) {
      // A support check that ran out of memory: asked again when the point runs, which records it.
    }
    if (p) {
      ++refusals[keyed_device(pp.device, pp.backend)][p->reason];
      refused.emplace(p->key(), *p);
    }
  }
  double total_gflop = 0;
  int to_run = 0;
  for (const auto& pp : plan.points) {
    if (already.count(point_key(pp)) || refused.count(point_key(pp))) continue;
    total_gflop += pp.gflop;
    ++to_run;
  }
  const int rounds = std::max(1, config.runner.rounds);
  Progress progress(config.progress, to_run * rounds, total_gflop * rounds);
  if (config.progress != Progress::Mode::quiet) {
    if (resuming)
      std::cerr << "resuming " << writer.file().string() << ": " << resumed
                << " points already in the file, " << to_run << " to go\n";
    for (const auto& [device, reasons] : refusals) {
      int points = 0;
      for (const auto& [reason, n] : reasons) points += n;
      std::cerr << device << " cannot run " << points << " point" << (points == 1 ? "" : "s")
                << " (recorded as unsupported):\n";
      for (const auto& [reason, n] : reasons) std::cerr << "  " << n << "  " << reason << "\n";
    }
    if (rounds > 1) std::cerr << to_run << " points to measure in " << rounds << " rounds\n";
  }

  loop.pre_empt = [&](const PlannedPoint& pp) -> std::optional<Point> {
    if (auto it = already.find(point_key(pp)); it != already.end()) return it->second;
    if (auto it = refused.find(point_key(pp)); it != refused.end()) return it->second;
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
    if (refused.count(p.key())) return;  // listed before the rounds
    progress.point_done(rounds > 1 ? p.key() + " round " + std::to_string(loop.round) : p.key(),
                        std::string(name(p.status)), pp.gflop);
  };

  std::optional<PointWatchdog> watchdog;
  if (config.point_time_bound_s > 0) {
    const double bound_s = config.point_time_bound_s;
    watchdog.emplace(bound_s, point_stuck_grace_s(bound_s), [&](const PlannedPoint& pp) {
      stop_at_stuck_point(pp, *watchdog, writer, models, config);
    });
    loop.watchdog = &*watchdog;
  }
  const auto start = std::chrono::steady_clock::now();
  loop.run(plan.points, config.benchmark_args);
  progress.finish();
  outcome.spent = loop.spent;
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer.set_context("time_split", time_split_json(outcome.spent, outcome.wall_s, rounds));
  if (config.progress != Progress::Mode::quiet)
    std::cerr << time_split_text(outcome.spent, outcome.wall_s) << "\n";

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
