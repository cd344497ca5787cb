// The harness's own overhead on the CPU: a point timed the harness's way against a bare loop
// timing the same oneDNN call; exit 1 when they differ by more than 2% (docs/measuring.md, "The
// harness against bare loops").
//   onednn_overhead_bench [--threads N]     (0, the default, = every logical processor)
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bare_loop.hpp"
#include "harness/measure/cpu_peak.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/measure/sampler.hpp"
#include "kernels/onednn/onednn_backend.hpp"

namespace {

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
  const int threads = lb::bench::threads_flag(argc, argv, "onednn_overhead_bench", 0);
  auto backend = lb::onednn::make_backend(threads);
  lb::CpuPeakOptions peak_options;
  peak_options.threads = threads;
  const lb::CpuPeak peak = lb::measure_cpu_peak(peak_options);
  std::printf("FP32 FMA peak %.1f GFLOP/s (%s)\n", peak.gflops, peak.method.c_str());
  lb::Sampler sampler;
  sampler.rule.min_time_s = 0.3;
  sampler.rule.max_time_s = 1.0;
  const int rounds = 7;
  bool within = true;
  for (const auto& point : points()) {
    lb::CaseOptions options;
    options.cache = lb::CacheMode::warm;      // both loops run on the very same buffers
    options.algo = lb::AlgoChoice::autotune;  // what the harness runs by default
    auto c = backend->prepare(point.problem, lb::make_inputs(point.problem, 1), options);

    std::vector<double> harness_medians, bare_medians;
    for (int round = 0; round < rounds; ++round) {
      // Each harness sample follows a bare one: the pairs see the same machine load.
      std::vector<double> bare_samples;
      const auto stats = sampler.measure([&] {
        bare_samples.push_back(lb::bench::steady_seconds([&] { lb::onednn::execute_untimed(*c); }));
        return c->run_timed();
      });
      harness_medians.push_back(stats.median_s);
      // The sampler's warm-up calls came first; keep the bare runs paired with its samples.
      bare_samples.erase(bare_samples.begin(), bare_samples.end() - stats.samples);
      bare_medians.push_back(lb::summarize(bare_samples).median_s);
    }
    const double harness = lb::summarize(harness_medians).median_s;
    const double bare = lb::summarize(bare_medians).median_s;
    const double difference = (harness - bare) / bare;
    within = within && std::fabs(difference) <= 0.02;
    const double gflops = lb::flop_count(point.problem) * 1e-9 / harness;
    std::printf(
        "%s (%s, %s): harness median %.4f ms, bare loop median %.4f ms (medians of %d "
        "rounds), difference %+.2f%%; %.1f GFLOP/s = %.0f%% of the FMA peak\n",
        point.label, lb::describe(point.problem).c_str(), c->implementation().c_str(),
        harness * 1e3, bare * 1e3, rounds, difference * 100, gflops, 100 * gflops / peak.gflops);
  }
  std::printf("%s\n", within ? "within 2%" : "NOT within 2%");
  return within ? 0 : 1;
}
