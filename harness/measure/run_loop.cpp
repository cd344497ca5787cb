#include "harness/measure/run_loop.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "harness/measure/per_sample_cpu_reporter.hpp"
#include "harness/measure/rounds.hpp"
#include "harness/measure/silent_reporter.hpp"

namespace lb {
namespace {

using steady = std::chrono::steady_clock;

// One Google Benchmark pass over the points: its round, whether it is an extra one, and for an
// extra pass the points it measures again and until when.
struct RoundPass {
  int round = 1;
  bool extra = false;
  std::set<std::string> again;
  steady::time_point deadline;
};

// Per point: the latest record (first round's, then with its rounds combined) and the
// samples of each round that counted; only points measured ok in the first round get more.
struct Visits {
  Point point;
  std::vector<SampleStats> rounds;
};

// Google Benchmark's record of a point: its loop runs once with the point's median as the manual
// time (0 without one), then the rates and implementation, or the status and reason.
void report_to_benchmark(benchmark::State& state, const Point& point) {
  for (auto _ : state) state.SetIterationTime(point.timing ? point.timing->median_s : 0);
  if (point.status == Status::ok) {
    state.counters["FLOP/s"] = benchmark::Counter(point.tflops * 1e12);
    state.counters["bytes/s"] = benchmark::Counter(point.gbps * 1e9);
    state.counters["workspace"] = benchmark::Counter(static_cast<double>(point.workspace_bytes));
    state.SetLabel(point.implementation);
  } else {
    state.SkipWithError((std::string(name(point.status)) + ": " + point.reason).c_str());
  }
}

// The points' visits over the passes: what each benchmark body does.
class PointVisits {
 public:
  explicit PointVisits(RunLoop& loop) : loop_(loop) {}

  void visit(benchmark::State& state, const PlannedPoint& pp, const RoundPass& pass) {
    const std::string key = point_key(pp);
    const auto visited = visits_.find(key);
    const bool stopping = loop_.stop && loop_.stop();
    if ((pass.round == 1 && stopping) || (pass.round > 1 && visited == visits_.end())) {
      state.SkipWithError("interrupted");
      for (auto _ : state) {
      }
      return;
    }
    bool measured = true;  // the first round records every point
    Point point;
    if (pass.round == 1) {
      point = first_visit(pp, key);
    } else {
      measured = measure_later_round(pp, key, visited->second, pass, stopping);
      point = visited->second.point;
    }
    if (point.timing) cpu_per_sample_s_[key] = point.timing->cpu_median_s;
    report_to_benchmark(state, point);
    if (measured) loop_.on_point(pp, point);
  }

  // The points an extra pass measures again: those whose rounds disagree, while time is left.
  std::set<std::string> to_measure_again(int suite_rounds, steady::time_point deadline) const {
    std::set<std::string> again;
    if (steady::now() >= deadline) return again;
    for (const auto& [key, v] : visits_)
      if (!v.rounds.empty() &&
          needs_extra_round(combine_rounds(v.rounds), suite_rounds, loop_.config.extra_rounds))
        again.insert(key);
    return again;
  }

  const std::map<std::string, double>& cpu_per_sample_s() const { return cpu_per_sample_s_; }

 private:
  // The first round: recorded without running when pre_empt gives the point, else measured.
  Point first_visit(const PlannedPoint& pp, const std::string& key) {
    if (std::optional<Point> given = loop_.pre_empt ? loop_.pre_empt(pp) : std::nullopt) {
      visits_[key] = {*given, {}};
      return *given;
    }
    Backend& backend = loop_.backend_for(pp);
    const PointWatch watch(loop_.watchdog, pp);
    const Sampler sampler = sampler_for(loop_.config.sampler, pp.device, backend);
    MeasureConfig checked = loop_.config;  // autotuning's runs get the pre-emption check
    checked.case_options.checked_run =
        [check = sampler.preemption](const std::function<double()>& run) { return check.run(run); };
    Point point = measure_point(pp, backend, checked, {sampler, loop_.watchdog, key}, &loop_.spent);
    if (point.status != Status::ok) {
      visits_[key] = {point, {}};
      return point;
    }
    point = with_rounds(point, {*point.timing});
    visits_[key] = {point, {*point.timing}};
    return point;
  }

  // A later round: a point ok in the first is measured again when the pass wants it (every such
  // point in the suite's rounds; in an extra pass, those chosen while time is left), its rounds
  // combined into `v`. False when it is not measured.
  bool measure_later_round(const PlannedPoint& pp, const std::string& key, Visits& v,
                           const RoundPass& pass, bool stopping) {
    const bool wanted = !pass.extra || (pass.again.count(key) > 0 && steady::now() < pass.deadline);
    if (stopping || v.rounds.empty() || !wanted) return false;
    Backend& backend = loop_.backend_for(pp);
    const PointWatch watch(loop_.watchdog, pp);
    const PointSampling sampling{sampler_for(loop_.config.sampler, pp.device, backend),
                                 loop_.watchdog, key};
    const RoundOutcome again =
        measure_again(pp, backend, loop_.config, v.point, sampling, &loop_.spent);
    if (again.stats) {
      v.rounds.push_back(*again.stats);
      v.point = with_rounds(v.point, v.rounds);
    } else {
      v.point.notes["round_" + std::to_string(pass.round)] = again.not_counted;
    }
    return true;
  }

  RunLoop& loop_;
  std::map<std::string, Visits> visits_;
  std::map<std::string, double> cpu_per_sample_s_;  // point name -> median CPU time of a sample
};

// Registers every point for this pass and runs them; `file_format` (when not null) writes the
// --benchmark_out file.
void run_pass(const std::vector<PlannedPoint>& points, PointVisits& visits, const RoundPass& pass,
              std::unique_ptr<benchmark::BenchmarkReporter> file_format) {
  benchmark::ClearRegisteredBenchmarks();
  for (const auto& pp : points)
    benchmark::RegisterBenchmark(
        point_key(pp).c_str(),
        [&visits, &pp, &pass](benchmark::State& state) { visits.visit(state, pp, pass); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  SilentReporter silent;
  if (file_format) {
    PerSampleCpuFileReporter file(std::move(file_format), visits.cpu_per_sample_s());
    benchmark::RunSpecifiedBenchmarks(&silent, &file);
  } else {
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
}

// Google Benchmark keeps pointers into `argv_storage` (the executable's name, for its file's
// context): it must outlive the run.
void initialize_benchmark(const std::vector<std::string>& args,
                          std::vector<std::string>& argv_storage) {
  argv_storage = {"layerbench"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
}

}  // namespace

// The pass a stop makes last only reports what earlier rounds measured, so that the file is
// written; so does one extra pass that measures nothing when none is needed after all.
void RunLoop::run(const std::vector<PlannedPoint>& points, std::vector<std::string> args) {
  std::vector<std::string> argv_storage;
  initialize_benchmark(args, argv_storage);
  PointVisits visits(*this);
  const int suite_rounds = std::max(1, config.rounds);
  const bool extras_possible = suite_rounds >= 2 && suite_rounds < config.extra_rounds.max_rounds;
  const int most_rounds = extras_possible ? config.extra_rounds.max_rounds : suite_rounds;
  const bool file_asked = out_file_format(args) != nullptr;
  const auto started = steady::now();
  steady::time_point extra_deadline = started;
  for (int round = 1;; ++round) {
    RoundPass pass{round, round > suite_rounds, {}, extra_deadline};
    if (round == suite_rounds + 1) {
      const auto suite_time = steady::now() - started;
      pass.deadline = extra_deadline =
          steady::now() + std::chrono::duration_cast<steady::duration>(
                              suite_time * config.extra_rounds.budget_fraction);
    }
    if (pass.extra && !(stop && stop()))
      pass.again = visits.to_measure_again(suite_rounds, pass.deadline);
    if (pass.extra && pass.again.empty() && !file_asked) break;
    const bool last =
        (stop && stop()) || (pass.extra && pass.again.empty()) || round >= most_rounds;
    this->round = round;
    run_pass(points, visits, pass, last ? out_file_format(args) : nullptr);
    if (last) break;
  }
  benchmark::ClearRegisteredBenchmarks();
}

}  // namespace lb
