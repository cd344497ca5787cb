// How close oneDNN's element-wise points come to a plain loop streaming the same bytes, the
// ceiling a framework's kernel reaches too; a measurement, not a check: exit 0 whatever the ratio
// (docs/measuring.md, "The harness against bare loops").
//   onednn_elementwise_ceiling_bench [--threads N]     (1, the default; the loop is 1-thread)
#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "bench/bare_loop.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/measure/sampler.hpp"
#include "kernels/onednn/onednn_backend.hpp"

namespace {

struct Point {
  const char* label;
  lb::MemoryShape shape;
};

lb::MemoryShape shape(lb::MemoryOp op, std::vector<std::int64_t> dims, bool in_place) {
  lb::MemoryShape s;
  s.op = op, s.dims = std::move(dims), s.in_place = in_place;
  return s;
}

// ResNet-50's (bench/models/resnet50.json) and ViT-B/16's shapes: L3-, L2- and DRAM-sized ones.
std::vector<Point> points() {
  using lb::MemoryOp;
  return {{"resnet50 relu_64_112 b8", shape(MemoryOp::relu, {8, 64, 112, 112}, true)},
          {"resnet50 relu_128_56 b8", shape(MemoryOp::relu, {8, 128, 56, 56}, true)},
          {"resnet50 relu_256_14 b8", shape(MemoryOp::relu, {8, 256, 14, 14}, true)},
          {"resnet50 add_1024_14 b1", shape(MemoryOp::add, {1, 1024, 14, 14}, true)},
          {"vit_b_16 residual_add b1", shape(MemoryOp::add, {1, 197, 768}, false)}};
}

// The loops, compiled with the widest instruction set the CPU runs (the compiler picks the
// vector width within it; the project builds for x86-64's baseline otherwise). Out of place
// when `out` differs from `a`.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define LB_LOOP_ISAS 1
__attribute__((target("avx512f"))) void relu_avx512(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
}
__attribute__((target("avx2"))) void relu_avx2(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
}
__attribute__((target("avx512f"))) void add_avx512(float* out, const float* a, const float* b,
                                                   std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
__attribute__((target("avx2"))) void add_avx2(float* out, const float* a, const float* b,
                                              std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
#endif
void relu_baseline(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
}
void add_baseline(float* out, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

struct Loops {
  void (*relu)(float*, std::size_t) = relu_baseline;
  void (*add)(float*, const float*, const float*, std::size_t) = add_baseline;
  const char* isa = "x86-64 baseline";
};

Loops widest_loops() {
  Loops loops;
#ifdef LB_LOOP_ISAS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    loops = {relu_avx512, add_avx512, "AVX-512"};
  } else if (__builtin_cpu_supports("avx2")) {
    loops = {relu_avx2, add_avx2, "AVX2"};
  }
#endif
  return loops;
}

struct AlignedFloats {
  explicit AlignedFloats(std::size_t n)
      : data(static_cast<float*>(::operator new (n * sizeof(float), std::align_val_t{64}))) {
    std::fill(data, data + n, -0.5f);
  }
  ~AlignedFloats() { ::operator delete (data, std::align_val_t{64}); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data;
};

int measure(int threads) {
  auto backend = lb::onednn::make_backend(threads);
  const Loops loops = widest_loops();
  std::printf("plain loops compiled for %s, 1 thread; oneDNN with %d thread(s)\n", loops.isa,
              threads);
  lb::Sampler sampler;
  sampler.rule.min_time_s = 0.2;
  sampler.rule.max_time_s = 0.5;
  const int rounds = 7;
  for (const auto& point : points()) {
    lb::Problem problem;
    problem.op = lb::MemoryProblem{point.shape, lb::Pass::fwd};
    lb::CaseOptions options;
    options.cache = lb::CacheMode::warm;
    options.algo = lb::AlgoChoice::autotune;
    auto c = backend->prepare(problem, lb::make_inputs(problem, 1), options);

    std::size_t n = 1;
    for (auto d : point.shape.dims) n *= static_cast<std::size_t>(d);
    const bool add = point.shape.op == lb::MemoryOp::add;
    AlignedFloats a(n), b(add ? n : 1), out(add && !point.shape.in_place ? n : 1);
    float* destination = add && !point.shape.in_place ? out.data : a.data;
    const auto loop = [&] {
      if (add) {
        loops.add(destination, a.data, b.data, n);
      } else {
        loops.relu(a.data, n);
      }
    };

    // Whole rounds alternate, not single runs: the two working sets together would no longer
    // fit the caches that hold each alone, and each side's runs would find the other's bytes.
    const auto timed = [](const std::function<void()>& run) {
      return [&run] { return lb::bench::steady_seconds(run); };
    };
    const std::function<void()> bare = [&] { lb::onednn::execute_untimed(*c); };
    const std::function<void()> plain = loop;
    std::vector<double> harness_medians, bare_medians, loop_medians;
    for (int round = 0; round < rounds; ++round) {
      harness_medians.push_back(sampler.measure([&] { return c->run_timed(); }).median_s);
      bare_medians.push_back(sampler.measure(timed(bare)).median_s);
      loop_medians.push_back(sampler.measure(timed(plain)).median_s);
    }
    const double harness = lb::summarize(harness_medians).median_s;
    const double oneDNN = lb::summarize(bare_medians).median_s;
    const double ceiling = lb::summarize(loop_medians).median_s;
    const double bytes = lb::min_bytes(problem);
    std::printf(
        "%s (%s, %s): harness %.4f ms, bare execute %.4f ms (%.1f GB/s), plain loop %.4f ms "
        "(%.1f GB/s); loop / bare %.3f, bare / harness %.3f (medians of %d rounds)\n",
        point.label, lb::describe(problem).c_str(), c->implementation().c_str(), harness * 1e3,
        oneDNN * 1e3, bytes / oneDNN * 1e-9, ceiling * 1e3, bytes / ceiling * 1e-9,
        ceiling / oneDNN, oneDNN / harness, rounds);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = lb::bench::threads_flag(argc, argv, "onednn_elementwise_ceiling_bench", 1);
  try {
    return measure(threads);
  } catch (const std::exception& e) {  // no oneDNN CPU engine, no memory for a point, ...
    std::fprintf(stderr, "onednn_elementwise_ceiling_bench: %s\n", e.what());
    return 1;
  }
}
