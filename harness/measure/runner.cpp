#include "harness/measure/runner.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <sstream>

#include "harness/check/validate.hpp"
#include "harness/device_id.hpp"
#include "harness/measure/host_buffers.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/measure/rounds.hpp"
#include "harness/model/accounting.hpp"
#include "harness/platform.hpp"
#include "harness/rapl.hpp"
#include "harness/shape_json.hpp"
#include "harness/units.hpp"

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
  return p;
}

Sampler sampler_for(const Sampler& sampler, const std::string& device, const Backend& backend) {
  // GPU points are timed by device events: the host thread's CPU time is not the measurement,
  // so only CPU points (their compute threads are this process's) get the pre-emption check.
  // Their CPU time per sample is still read: Google Benchmark's cpu_time reports it.
  Sampler checked = sampler;
  checked.threads = 0;
  const auto id = parse_device_id(device);
  if (id && id->kind == DeviceKind::cpu) {
    checked.threads = 1;
    for (const auto& [fact, value] : backend.context())
      if (fact == "threads") checked.threads = std::max(1, std::atoi(value.c_str()));
  }
  checked.usage = [] {
    const platform::CpuUsage u = platform::process_cpu_usage();
    return Sampler::CpuReading{u.cpu_s, u.involuntary_switches, u.run_queue_wait_s};
  };
  return checked;
}

MeasureFn sampler_measure(const Sampler& sampler, const PointWatchdog* watchdog,
                          const std::string& point_name) {
  return [sampler, watchdog, point_name](Case& c) {
    Sampler::Hooks hooks;
    hooks.begin_samples = [&c, &point_name] { c.begin_samples(point_name); };
    hooks.end_samples = [&c] { c.end_samples(); };
    hooks.throttled = [&c] { return c.last_run_throttled(); };
    return sampler.measure(
        [&c, watchdog] {
          if (watchdog) watchdog->check();
          return c.run_timed();
        },
        hooks);
  };
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
}  // namespace

std::optional<Point> refused_point(const PlannedPoint& pp, const Backend& backend,
                                   const RunnerConfig& config, PhaseSeconds* spent) {
  const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
  std::optional<std::string> why = indexing_overflow(*pp.op, pp.batch);
  if (!why)
    why = timed_phase(phase(spent, &PhaseSeconds::refusal),
                      [&] { return backend.unsupported_reason(problem); });
  if (!why) return std::nullopt;
  Point p = describe_point(pp, problem);
  p.backend = backend.name();
  p.cache = config.case_options.cache == CacheMode::cold ? "cold" : "warm";
  p.status = Status::unsupported;
  p.reason = *why;
  return p;
}

Point measure_point(const PlannedPoint& pp, Backend& backend, const RunnerConfig& config,
                    const MeasureFn& measure, PhaseSeconds* spent) {
  const Problem problem = problem_for(*pp.op, pp.batch, pp.pass, pp.precision);
  Point p = describe_point(pp, problem);
  p.backend = backend.name();
  p.cache = config.case_options.cache == CacheMode::cold ? "cold" : "warm";
  std::unique_ptr<Case> c;
  std::vector<HostTensor> inputs;
  try {
    // Inside the try: a backend's support check may itself run out of memory.
    if (auto refused = refused_point(pp, backend, config, spent)) return *refused;
    inputs = timed_phase(phase(spent, &PhaseSeconds::inputs),
                         [&] { return make_inputs(problem, config.seed); });
    require_library_headroom("the point's inputs");  // room for the library's set-up
    c = timed_phase(phase(spent, &PhaseSeconds::prepare),
                    [&] { return backend.prepare(problem, inputs, config.case_options); });
    p.backend = c->library();
    p.implementation = c->implementation();
    p.workspace_bytes = c->workspace_bytes();
    const RaplWindow cpu_energy(cpu_rapl_packages(pp.device));
    const SampleStats stats =
        timed_phase(phase(spent, &PhaseSeconds::sampling), [&] { return measure(*c); });
    p.timing = stats;
    p.tflops = p.gflop / stats.median_s / 1e3;
    p.gbps = p.bytes / stats.median_s / 1e9;
    for (auto& [k, v] : c->notes()) p.notes[k] = v;  // after timing: clocks are read there
    if ((p.telemetry = c->telemetry())) {
      p.telemetry->retaken_samples = stats.throttled_retakes;
      p.telemetry->throttled = stats.throttled;
    } else {
      p.telemetry = cpu_energy.finish(stats.samples);
    }
    p.validation = timed_phase(phase(spent, &PhaseSeconds::validation), [&] {
      return validate(problem, inputs, c->output(), pp.precision);
    });
    if (!p.validation->passed) {
      std::ostringstream why;
      why << "validation failed: relative L2 error " << p.validation->rel_l2 << " (max abs "
          << p.validation->max_abs << ") exceeds the " << name(pp.precision) << " tolerance "
          << p.validation->tolerance;
      p.status = Status::failed;
      p.reason = why.str();
    }
  } catch (const OutOfMemory& e) {
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
  } catch (const std::bad_alloc&) {
    // The host ran out (its inputs, a library's own allocation): out of memory like a device
    // that cannot fit the point, and the run goes on.
    p.status = Status::oom;
    p.reason = "host memory ran out while preparing or measuring the point";
  } catch (const Unsupported& e) {
    p.status = Status::unsupported;
    p.reason = e.what();
  } catch (const std::exception& e) {
    p.status = Status::failed;
    p.reason = e.what();
  }
  return p;
}

RoundOutcome measure_again(const PlannedPoint& pp, Backend& backend, const RunnerConfig& config,
                           const Point& first, const MeasureFn& measure, PhaseSeconds* spent) {
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
    return {timed_phase(phase(spent, &PhaseSeconds::sampling), [&] { return measure(*c); }), ""};
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
  combined.best_round = summary.representative;
  combined.round_spread = summary.spread;
  combined.unstable = summary.unstable;
  combined.uncertainty = summary.uncertainty;
  p.timing = combined;
  p.tflops = p.gflop / combined.median_s / 1e3;
  p.gbps = p.bytes / combined.median_s / 1e9;
  return p;
}

namespace {
// Google Benchmark's console output would interleave with our progress line; the results
// file is the record. --benchmark_out still gets Google Benchmark's own file reporter.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// The --benchmark_out file, written by Google Benchmark's own reporter for the format asked
// (--benchmark_out_format: json, csv or console), with each point's cpu_time made the median CPU
// time of one sample. Google Benchmark itself would report the CPU time of the whole loop body:
// warm-up and every sample, which varies with the sample count rather than with the code.
class PerSampleCpuFileReporter : public benchmark::BenchmarkReporter {
 public:
  PerSampleCpuFileReporter(std::unique_ptr<benchmark::BenchmarkReporter> format,
                           const std::map<std::string, double>& cpu_s)
      : format_(std::move(format)), cpu_s_(cpu_s) {}
  bool ReportContext(const Context& context) override {
    format_->SetOutputStream(&GetOutputStream());
    format_->SetErrorStream(&GetErrorStream());
    return format_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> per_sample = runs;
    for (Run& run : per_sample)
      if (auto it = cpu_s_.find(run.run_name.function_name); it != cpu_s_.end())
        run.cpu_accumulated_time = it->second * static_cast<double>(run.iterations);
    format_->ReportRuns(per_sample);
  }
  void Finalize() override { format_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> format_;
  const std::map<std::string, double>& cpu_s_;
};

// Google Benchmark's reporter for --benchmark_out_format's value (json when not given); null
// without --benchmark_out (no file). Google Benchmark has already rejected any other format.
std::unique_ptr<benchmark::BenchmarkReporter> out_file_format(
    const std::vector<std::string>& args) {
  std::string format = "json";
  bool out = false;
  for (const auto& a : args) {
    if (a.rfind("--benchmark_out=", 0) == 0) out = true;
    if (a.rfind("--benchmark_out_format=", 0) == 0) format = a.substr(a.find('=') + 1);
  }
  if (!out) return nullptr;
  if (format == "csv") {
    // Deprecated upstream, yet still the format --benchmark_out_format=csv asks for.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    return std::make_unique<benchmark::CSVReporter>();
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
  }
  if (format == "console")
    return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  return std::make_unique<benchmark::JSONReporter>();
}
// Per point: the latest record (first round's, then with its rounds combined) and the
// samples of each round that counted; only points measured ok here get more rounds.
struct Visits {
  Point point;
  std::vector<SampleStats> rounds;
};

// The points an extra pass measures again: those whose rounds disagree, while time is left.
std::set<std::string> to_measure_again(const std::map<std::string, Visits>& visits,
                                       int suite_rounds, const ExtraRoundsRule& rule,
                                       std::chrono::steady_clock::time_point deadline) {
  std::set<std::string> again;
  if (std::chrono::steady_clock::now() >= deadline) return again;
  for (const auto& [key, v] : visits)
    if (!v.rounds.empty() && needs_extra_round(combine_rounds(v.rounds), suite_rounds, rule))
      again.insert(key);
  return again;
}
}  // namespace

void RunLoop::run(const std::vector<PlannedPoint>& points, std::vector<std::string> args) {
  std::vector<std::string> argv_storage{"layerbench"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  std::map<std::string, double> cpu_per_sample_s;  // point name -> median CPU time of a sample
  std::map<std::string, Visits> visits;

  // One Google Benchmark pass per round: the --benchmark_out file is written by the last, which
  // is also the one a stop makes last (it then only reports what earlier rounds measured). The
  // extra passes' time is bounded from the suite's rounds' (ExtraRoundsRule); when none is
  // needed after all, one pass that measures nothing writes the file.
  const int suite_rounds = std::max(1, config.rounds);
  const bool extras_possible = suite_rounds >= 2 && suite_rounds < config.extra_rounds.max_rounds;
  const int most_rounds = extras_possible ? config.extra_rounds.max_rounds : suite_rounds;
  const bool file_asked = out_file_format(args) != nullptr;
  const auto started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point extra_deadline = started;
  for (int round = 1;; ++round) {
    const bool extra = round > suite_rounds;
    if (round == suite_rounds + 1) {
      const auto suite_time = std::chrono::steady_clock::now() - started;
      extra_deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           suite_time * config.extra_rounds.budget_fraction);
    }
    const std::set<std::string> again =
        extra && !(stop && stop())
            ? to_measure_again(visits, suite_rounds, config.extra_rounds, extra_deadline)
            : std::set<std::string>{};
    if (extra && again.empty() && !file_asked) break;
    const bool last = (stop && stop()) || (extra && again.empty()) || round >= most_rounds;
    this->round = round;
    benchmark::ClearRegisteredBenchmarks();
    for (const auto& pp : points) {
      benchmark::RegisterBenchmark(
          point_key(pp).c_str(),
          [this, &pp, &cpu_per_sample_s, &visits, round, extra, &again,
           extra_deadline](benchmark::State& state) {
            const std::string key = point_key(pp);
            const auto visited = visits.find(key);
            const bool stopping = stop && stop();
            if ((round == 1 && stopping) || (round > 1 && visited == visits.end())) {
              state.SkipWithError("interrupted");
              for (auto _ : state) {
              }
              return;
            }
            std::optional<Point> point;
            bool measured = false;
            // Set before the loop starts: a sample that throws leaves the loop started, and
            // Google Benchmark aborts the process when a started loop is entered again.
            bool loop_started = false;
            const auto in_benchmark_loop = [&](const MeasureFn& sample) -> MeasureFn {
              return [&, sample](Case& c) {
                SampleStats stats;
                loop_started = true;
                for (auto _ : state) {
                  stats = sample(c);
                  state.SetIterationTime(stats.median_s);
                }
                return stats;
              };
            };
            if (round == 1) {
              point = pre_empt ? pre_empt(pp) : std::nullopt;
              if (!point) {
                // Set-up (allocation, inputs, algorithm choice) happens inside measure_point
                // before the loop; the only time Google Benchmark sees is the median we hand it.
                Backend& backend = backend_for(pp);
                const PointWatch watch(watchdog, pp);
                const Sampler sampler = sampler_for(config.sampler, pp.device, backend);
                RunnerConfig checked = config;  // autotuning's runs get the pre-emption check
                checked.case_options.checked_run = [sampler](const std::function<double()>& run) {
                  return sampler.checked_run(run);
                };
                point = measure_point(pp, backend, checked,
                                      in_benchmark_loop(sampler_measure(sampler, watchdog, key)),
                                      &spent);
                measured = true;
                if (point->status == Status::ok) {
                  point = with_rounds(*point, {*point->timing});
                  visits[key] = {*point, {*point->timing}};
                }
              }
              if (!measured || point->status != Status::ok) visits[key] = {*point, {}};
            } else {
              Visits& v = visited->second;
              point = v.point;
              const bool wanted = !extra || (again.count(key) > 0 &&
                                             std::chrono::steady_clock::now() < extra_deadline);
              if (!stopping && !v.rounds.empty() && wanted) {
                Backend& backend = backend_for(pp);
                const PointWatch watch(watchdog, pp);
                const MeasureFn sample =
                    sampler_measure(sampler_for(config.sampler, pp.device, backend), watchdog, key);
                // Sampled outside Google Benchmark's loop, which then gets the rounds' median time.
                RoundOutcome again = measure_again(pp, backend, config, v.point, sample, &spent);
                if (again.stats) {
                  v.rounds.push_back(*again.stats);
                  v.point = with_rounds(v.point, v.rounds);
                } else {
                  v.point.notes["round_" + std::to_string(round)] = again.not_counted;
                }
                point = v.point;
                measured = true;
              }
            }
            if (point->timing) cpu_per_sample_s[key] = point->timing->cpu_median_s;
            if (!loop_started) {  // refused, resumed or a later round: the loop must still run
              for (auto _ : state)
                state.SetIterationTime(point->timing ? point->timing->median_s : 0);
            }
            if (point->status == Status::ok) {
              state.counters["FLOP/s"] = benchmark::Counter(point->tflops * 1e12);
              state.counters["bytes/s"] = benchmark::Counter(point->gbps * 1e9);
              state.counters["workspace"] =
                  benchmark::Counter(static_cast<double>(point->workspace_bytes));
              state.SetLabel(point->implementation);
            } else {
              state.SkipWithError(
                  (std::string(name(point->status)) + ": " + point->reason).c_str());
            }
            if (round == 1 || measured) on_point(pp, *point);
          })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
    SilentReporter silent;
    auto format = last ? out_file_format(args) : nullptr;
    if (format) {
      PerSampleCpuFileReporter file(std::move(format), cpu_per_sample_s);
      benchmark::RunSpecifiedBenchmarks(&silent, &file);
    } else {
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
    if (last) break;
  }
  benchmark::ClearRegisteredBenchmarks();
}

}  // namespace lb
