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

// A stuck point is recorded failed, so that --resume goes past it (a call that hung once would
// hang every resume). Runs on the watchdog's thread while the point's own is stuck and ends the
// process, so it prints what it did itself.
[[noreturn]] void stop_at_stuck_point(const PlannedPoint& pp, const PointWatchdog& watchdog,
                                      ResultsWriter& writer, const std::vector<Model>& models,
                                      const SessionConfig& config) {
  Point p = describe_point(pp, problem_for(*pp.op, pp.batch, pp.pass, pp.precision));
  p.cache = config.measuring.case_options.cache == CacheMode::cold ? "cold" : "warm";
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

Session::Session(const Plan& plan, const std::vector<Model>& models, ResultsWriter& writer,
                 const SessionConfig& config, BackendFor backend_for)
    : plan_(plan), models_(models), writer_(writer), config_(config) {
  for (const auto& p : writer.points()) already_.emplace(p.key(), p);
  for (const auto& [key, p] : already_)
    if (p.status == Status::oom) sweep_.record_oom(p);
  loop_.config = config.measuring;
  loop_.backend_for = std::move(backend_for);
  start_.resumed = already_.size();
  start_.rounds = std::max(1, config.measuring.rounds);
  // Points a backend cannot run are asked about first, once; the first round records them in
  // their place in the plan.
  for (const auto& pp : plan.points) {
    if (already_.count(point_key(pp))) continue;
    std::optional<Point> p;
    try {
      p = refused_point(pp, loop_.backend_for(pp), config.measuring, &loop_.spent);
    } catch (const std::exception&) {
      // A support check that ran out of memory: asked again when the point runs, which records it.
    }
    if (p) {
      ++start_.refusals[keyed_device(pp.device, pp.backend)][p->reason];
      refused_.emplace(p->key(), *p);
    }
  }
  for (const auto& pp : plan.points)
    if (!already_.count(point_key(pp)) && !refused_.count(point_key(pp))) ++start_.to_run;
}

std::optional<Point> Session::recorded_without_running(const PlannedPoint& pp) const {
  if (auto it = already_.find(point_key(pp)); it != already_.end()) return it->second;
  if (auto it = refused_.find(point_key(pp)); it != refused_.end()) return it->second;
  if (plan_.sweep_until_oom) {
    if (auto first = sweep_.smaller_oom_batch(pp)) {
      Point p = describe_point(pp, problem_for(*pp.op, pp.batch, pp.pass, pp.precision));
      p.status = Status::oom;
      p.reason = oom_skip_reason(*first);
      return p;
    }
  }
  return std::nullopt;
}

void Session::record(const PlannedPoint& pp, const Point& p, Progress& progress,
                     SessionOutcome& outcome) {
  if (already_.count(p.key())) return;  // resumed: already in the file
  if (p.status == Status::oom) sweep_.record_oom(pp);
  try {
    writer_.append(p);
  } catch (const OutputError& e) {
    outcome.write_error = e.what();
    return;
  }
  if (refused_.count(p.key())) return;  // listed before the rounds
  const int rounds = start_.rounds;
  const std::string label =
      rounds > 1 ? p.key() + " round " + std::to_string(loop_.round) : p.key();
  if (loop_.round > rounds)
    progress.extra_point_done(label, std::string(name(p.status)));
  else
    progress.point_done(label, std::string(name(p.status)), pp.gflop);
}

SessionOutcome Session::measure() {
  SessionOutcome outcome;
  double total_gflop = 0;
  for (const auto& pp : plan_.points)
    if (!already_.count(point_key(pp)) && !refused_.count(point_key(pp))) total_gflop += pp.gflop;
  Progress progress(config_.progress, start_.to_run * start_.rounds, total_gflop * start_.rounds);
  loop_.stop = [&] { return interrupt::poll_stop() || outcome.write_error.has_value(); };
  loop_.pre_empt = [this](const PlannedPoint& pp) { return recorded_without_running(pp); };
  loop_.on_point = [&](const PlannedPoint& pp, const Point& p) {
    record(pp, p, progress, outcome);
  };
  std::optional<PointWatchdog> watchdog;
  if (config_.point_time_bound_s > 0) {
    const double bound_s = config_.point_time_bound_s;
    watchdog.emplace(bound_s, point_stuck_grace_s(bound_s), [&](const PlannedPoint& pp) {
      stop_at_stuck_point(pp, *watchdog, writer_, models_, config_);
    });
    loop_.watchdog = &*watchdog;
    loop_.config.case_options.time_bound_s = bound_s;
  }
  const auto start = std::chrono::steady_clock::now();
  loop_.run(plan_.points, config_.benchmark_args);
  progress.finish();
  loop_.watchdog = nullptr;
  outcome.spent = loop_.spent;
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer_.set_context("time_split", time_split_json(outcome.spent, outcome.wall_s, start_.rounds));
  outcome.results = aggregate(writer_.points(), models_, config_.device_limits);
  outcome.interrupted = interrupt::stop_requested().load();
  for (const auto& p : writer_.points())
    if (p.status == Status::failed) ++outcome.failed;
  return outcome;
}

std::optional<std::string> Session::finish(const SessionOutcome& outcome) {
  const auto [model_json, boundary_json] = model_records(outcome.results);
  try {
    writer_.finish(outcome.interrupted ? "interrupted" : "complete", model_json, boundary_json);
  } catch (const OutputError& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace lb
