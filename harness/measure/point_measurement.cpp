#include "harness/measure/point_measurement.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <sstream>
#include <system_error>

#include "harness/api/device_id.hpp"
#include "harness/api/shape_json.hpp"
#include "harness/check/validate.hpp"
#include "harness/machine/rapl.hpp"
#include "harness/measure/canary.hpp"
#include "harness/measure/host_buffers.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/model/accounting.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/units.hpp"

namespace lb {

Point describe_point(const PlannedPoint& pp, const Problem& problem) {
  Point p;
  p.model = pp.model->name;
  p.op = pp.op->id;
  p.kind = pp.op->kind;
  p.layers = pp.op->layers;
  p.count = pp.op->count();
  p.batch = pp.batch;
  p.precision = pp.precision;
  p.precision_meaning = std::string(meaning(pp.precision));
  p.pass = pp.pass;
  p.device = pp.device;
  p.backend = pp.backend;
  p.shape = shape_json(problem);
  p.shape_text = describe(problem);
  p.gflop = flop_count(problem) / 1e9;
  p.bytes = min_bytes(problem);
  p.intensity = flop_count(problem) / p.bytes;
  p.memory_bytes = memory_bytes(problem);
  if (!pp.planned_for.empty()) p.notes[planned_for_note] = pp.planned_for;
  return p;
}

Sampler sampler_for(const Sampler& sampler, const std::string& device, const Backend& backend) {
  // GPU points are timed by device events: the host thread's CPU time is not the measurement,
  // so only CPU points (their compute threads are this process's) get the pre-emption check.
  // Their CPU time per sample is still read: Google Benchmark's cpu_time reports it.
  Sampler checked = sampler;
  checked.preemption.threads = 0;
  const auto id = parse_device_id(device);
  if (id && id->is_cpu()) {
    const int threads = std::max(1, backend.compute_threads());
    checked.preemption.threads = threads;
    checked.machine_slowdown = [threads] { return machine_canary().slowdown(threads); };
  }
  checked.preemption.usage = [] {
    const platform::CpuUsage u = platform::process_cpu_usage();
    return PreemptionCheck::CpuReading{u.cpu_s, u.involuntary_switches, u.run_queue_wait_s};
  };
  return checked;
}

SampleStats PointSampling::take(Case& c) const {
  Sampler::Hooks hooks;
  hooks.begin_samples = [&] { c.begin_samples(point_name); };
  hooks.end_samples = [&c] { c.end_samples(); };
  hooks.throttled = [&c] { return c.last_run_throttled(); };
  return sampler.measure(
      [&] {
        if (watchdog) watchdog->check();
        return c.run_timed();
      },
      hooks);
}

namespace {
// Adds the wall time of `step` to `*seconds` (when given), also when it throws.
template <class Step>
auto timed_phase(double* seconds, Step&& step) {
  struct Add {
    double* seconds;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Add() {
      if (seconds)
        *seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  } add{seconds};
  return step();
}
double* phase(PhaseSeconds* spent, double PhaseSeconds::*member) {
  return spent ? &(spent->*member) : nullptr;
}

const char* cache_name(const MeasureConfig& config) {
  return config.case_options.cache == CacheMode::cold ? "cold" : "warm";
}

// Records an out-of-memory with what was needed and available, where the library said.
void record_out_of_memory(Point& p, const OutOfMemory& e) {
  p.status = Status::oom;
  p.reason = e.what();
  // 0: not known (a library's own out-of-memory status, too little address space left).
  if (e.needed_bytes > 0) {
    p.reason += " (needs " + gib_text(e.needed_bytes);
    if (e.available_bytes > 0) p.reason += ", " + gib_text(e.available_bytes) + " available";
    p.reason += ")";
    p.notes["needed_bytes"] = std::to_string(e.needed_bytes);
  }
  if (e.available_bytes > 0) p.notes["available_bytes"] = std::to_string(e.available_bytes);
}

// Prepares, samples and validates an ok point in place; what it throws, measure_point records.
void prepare_sample_validate(Point& p, const PlannedPoint& pp, const Problem& problem,
                             Backend& backend, const MeasureConfig& config,
                             const PointSampling& sampling, PhaseSeconds* spent) {
  const std::vector<HostTensor> inputs = timed_phase(
      phase(spent, &PhaseSeconds::inputs), [&] { return make_inputs(problem, config.seed); });
  require_library_headroom("the point's inputs");  // room for the library's set-up
  const std::unique_ptr<Case> c = timed_phase(phase(spent, &PhaseSeconds::prepare), [&] {
    return backend.prepare(problem, inputs, config.case_options);
  });
  p.backend = c->library();
  p.implementation = c->implementation();
  p.workspace_bytes = c->workspace_bytes();
  const RaplWindow cpu_energy(cpu_rapl_packages(pp.device));
  const SampleStats stats =
      timed_phase(phase(spent, &PhaseSeconds::sampling), [&] { return sampling.take(*c); });
  p.timing = stats;
  p.tflops = p.gflop / stats.median_s / 1e3;
  p.gbps = p.bytes / stats.median_s / 1e9;
  for (auto& [k, v] : c->notes()) p.notes[k] = v;  // after timing: clocks are read there
  if ((p.telemetry = c->telemetry()))
    record_retakes(*p.telemetry, stats.throttled_retakes, stats.throttled);
  else
    p.telemetry = cpu_energy.finish(stats.samples);
  p.validation = timed_phase(phase(spent, &PhaseSeconds::validation),
                             [&] { return validate(problem, inputs, c->output(), pp.precision); });
  if (!p.validation->passed) {
    std::ostringstream why;
    why << "validation failed: relative L2 error " << p.validation->rel_l2 << " (max abs "
        << p.validation->max_abs << ") exceeds the " << name(pp.precision) << " tolerance "
        << p.validation->tolerance;
    p.status = Status::failed;
    p.reason = why.str();
  }
}
}  // namespace

std::optional<Point> refused_point(const PlannedPoint& pp, const Backend& backend,
                                   const MeasureConfig& config, PhaseSeconds* spent) {
  const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
  std::optional<std::string> why = indexing_overflow(*pp.op, pp.batch);
  if (!why)
    why = timed_phase(phase(spent, &PhaseSeconds::refusal),
                      [&] { return backend.unsupported_reason(problem); });
  if (!why) return std::nullopt;
  Point p = describe_point(pp, problem);
  p.backend = backend.name();
  p.cache = cache_name(config);
  p.status = Status::unsupported;
  p.reason = *why;
  return p;
}

Point measure_point(const PlannedPoint& pp, Backend& backend, const MeasureConfig& config,
                    const PointSampling& sampling, PhaseSeconds* spent) {
  const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
  Point p = describe_point(pp, problem);
  p.backend = backend.name();
  p.cache = cache_name(config);
  try {
    // Inside the try: a backend's support check may itself run out of memory.
    if (auto refused = refused_point(pp, backend, config, spent)) return *refused;
    prepare_sample_validate(p, pp, problem, backend, config, sampling, spent);
  } catch (const OutOfMemory& e) {
    record_out_of_memory(p, e);
  } catch (const std::bad_alloc&) {
    // The host ran out (its inputs, a library's own allocation): out of memory like a device
    // that cannot fit the point, and the run goes on.
    p.status = Status::oom;
    p.reason = "host memory ran out while preparing or measuring the point";
  } catch (const Unsupported& e) {
    p.status = Status::unsupported;
    p.reason = e.what();
  } catch (const std::system_error& e) {
    // std::thread's EAGAIN: no memory, address space or thread was left to start one.
    const bool ran_out = e.code() == std::errc::resource_unavailable_try_again;
    p.status = ran_out ? Status::oom : Status::failed;
    p.reason = ran_out ? std::string("a thread could not start (") + e.what() +
                             "): the host's memory, address space or thread limit ran out"
                       : e.what();
  } catch (const std::exception& e) {
    p.status = Status::failed;
    p.reason = e.what();
  }
  return p;
}

RoundOutcome measure_again(const PlannedPoint& pp, Backend& backend, const MeasureConfig& config,
                           const Point& first, const PointSampling& sampling, PhaseSeconds* spent) {
  const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
  CaseOptions options = config.case_options;
  options.implementation = first.implementation;  // the first round's choice, not a new one
  try {
    const std::vector<HostTensor> inputs = timed_phase(
        phase(spent, &PhaseSeconds::inputs), [&] { return make_inputs(problem, config.seed); });
    const std::unique_ptr<Case> c = timed_phase(phase(spent, &PhaseSeconds::prepare), [&] {
      return backend.prepare(problem, inputs, options);
    });
    if (c->implementation() != first.implementation)
      return {std::nullopt, "not counted: the algorithm choice ran " + c->implementation() +
                                " this time, not " + first.implementation};
    return {timed_phase(phase(spent, &PhaseSeconds::sampling), [&] { return sampling.take(*c); }),
            ""};
  } catch (const std::exception& e) {
    // A round that cannot run (memory taken by another program since) adds no figure; the
    // first round's stands, validated.
    return {std::nullopt, std::string("not counted: ") + e.what()};
  }
}

Point with_rounds(const Point& first, const std::vector<SampleStats>& rounds) {
  const RoundsSummary summary = combine_rounds(rounds);
  Point p = first;
  SampleStats combined = rounds[summary.representative];
  combined.median_s = summary.median_s;
  combined.contended = summary.contended;
  combined.round_medians_s = summary.medians_s;
  combined.round_contended = summary.contended_rounds;
  // A round may be a record already combined (the first round's point keeps its timing).
  combined.round_canary_slowdowns.clear();
  combined.round_canary_memory_slowdowns.clear();
  if (std::any_of(rounds.begin(), rounds.end(),
                  [](const SampleStats& r) { return r.canary_slowdown > 0; }))
    for (const SampleStats& r : rounds) {
      combined.round_canary_slowdowns.push_back(r.canary_slowdown);
      combined.round_canary_memory_slowdowns.push_back(r.canary_memory_slowdown);
    }
  combined.best_round = summary.representative;
  combined.round_spread = summary.spread;
  combined.unstable = summary.unstable;
  combined.uncertainty = summary.uncertainty;
  p.timing = combined;
  p.tflops = p.gflop / combined.median_s / 1e3;
  p.gbps = p.bytes / combined.median_s / 1e9;
  return p;
}

}  // namespace lb
