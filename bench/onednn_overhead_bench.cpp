// The harness's own overhead on the CPU: the median of a point measured the harness's way
// (Case::run_timed under lb::Sampler: virtual call, buffer-set step, thread setting, steady clock
// around execute + wait) against Google Benchmark's bare loop around the same oneDNN execute()
// call on the same prepared case (warm, one buffer set). They should agree within 2%.
//
//   onednn_overhead_bench [--threads N]     (0, the default, = every logical processor)
// Prints both medians and their difference; exits 1 when the difference exceeds 2%.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/inputs.hpp"
#include "harness/stats.hpp"
#include "kernels/onednn/onednn_backend.hpp"

namespace {

// Collects the seconds per iteration of each repetition of the bare loop.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::vector<double> per_iteration_s;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred && r.iterations > 0)
        per_iteration_s.push_back(r.real_accumulated_time / static_cast<double>(r.iterations));
    ConsoleReporter::ReportRuns(runs);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Point {
  const char* label;
  lb::Problem problem;
};

std::vector<Point> points() {
  lb::ConvShape conv;  // ResNet-50's 3x3 convolution of stage 1 (conv2_x), batch 1
  conv.n = 1, conv.c = 64, conv.h = 56, conv.w = 56, conv.k = 64, conv.r = 3, conv.s = 3;
  conv.pad_h = conv.pad_w = 1;
  lb::Problem c;
  c.op = lb::ConvProblem{conv, lb::Pass::fwd};
  lb::Problem g;  // ViT-B/16's QKV projection at batch 1: 197 tokens, 768 -> 2304
  g.op = lb::GemmProblem{lb::GemmShape{1, 197, 2304, 768, false, true}};
  return {{"resnet50 conv2_x 3x3 fwd", c}, {"vit-b16 qkv linear", g}};
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "onednn_overhead_bench: unknown argument '%s' (usage: [--threads N])\n",
                   arg.c_str());
      return 2;
    }
  }
  auto backend = lb::onednn::make_backend(threads);
  lb::Sampler sampler;
  sampler.rule.min_time_s = 1.0;
  sampler.rule.max_time_s = 3.0;
  bool within = true;
  for (const auto& point : points()) {
    lb::CaseOptions options;
    options.cache = lb::CacheMode::warm;  // both loops run on the very same buffers
    options.algo = lb::AlgoChoice::heuristic;
    auto c = backend->prepare(point.problem, lb::make_inputs(point.problem, 1), options);

    // Harness, bare loop, harness again: drifting machine load affects both sides alike.
    const double harness_first = sampler.measure([&] { return c->run_timed(); }).median_s;
    Collector collector;
    benchmark::ClearRegisteredBenchmarks();
    benchmark::RegisterBenchmark("bare_execute", [&](benchmark::State& state) {
      for (auto _ : state) lb::onednn::execute_untimed(*c);
    })->UseRealTime()->MinTime(0.4)->Repetitions(5);
    benchmark::RunSpecifiedBenchmarks(&collector);
    const double harness_second = sampler.measure([&] { return c->run_timed(); }).median_s;

    const double harness = 0.5 * (harness_first + harness_second);
    const double bare = median(collector.per_iteration_s);
    const double difference = (harness - bare) / bare;
    within = within && std::fabs(difference) <= 0.02;
    std::printf("%s (%s, %s): harness median %.4f ms (rounds %.4f, %.4f), bare loop median "
                "%.4f ms, difference %+.2f%%\n",
                point.label, lb::describe(point.problem).c_str(), c->implementation().c_str(),
                harness * 1e3, harness_first * 1e3, harness_second * 1e3, bare * 1e3,
                difference * 100);
  }
  std::printf("%s\n", within ? "within 2%" : "NOT within 2%");
  return within ? 0 : 1;
}
