// Where the harness puts a case's buffers must not slow a layer down: ResNet-50's batch norms
// (inference, batch 1, FP32) measured as layerbench measures them, against the same oneDNN
// primitive built by hand on buffers of its own, each allocated apart and started at a page
// offset of its own. Exit 1 when a point is more than 1.2x slower than the bare loop
// (docs/measuring.md, "The harness against bare loops").
//   onednn_batch_norm_bench [--threads N]     (1, the default; 0 = every logical processor)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "bench/bare_loop.hpp"
#include "harness/api/problem.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/measure/sampler.hpp"
#include "kernels/onednn/onednn_backend.hpp"

namespace {

using Tag = dnnl::memory::format_tag;

// A buffer of its own, starting `offset` bytes into a page of an allocation of its own.
class OwnBuffer {
 public:
  OwnBuffer(std::size_t bytes, std::size_t offset)
      : block_(std::make_unique<char[]>(bytes + offset + 4096)), offset_(offset) {}
  float* data() const {
    const auto address = reinterpret_cast<std::uintptr_t>(block_.get());
    return reinterpret_cast<float*>((address + 4095) / 4096 * 4096 + offset_);
  }
  std::size_t page_offset() const { return reinterpret_cast<std::uintptr_t>(data()) % 4096; }

 private:
  std::unique_ptr<char[]> block_;
  std::size_t offset_;
};

// The same batch norm as the backend's (forward_inference, running statistics, scale and
// shift, nn.BatchNorm2d's epsilon) in the layout the backend chose for the point.
struct BarePrimitive {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::batch_normalization_forward primitive;
  std::string implementation;
  std::vector<std::unique_ptr<OwnBuffer>> buffers;
  std::unordered_map<int, dnnl::memory> args;

  BarePrimitive(std::int64_t c, std::int64_t hw, Tag layout) {
    const dnnl::memory::desc x({1, c, hw, hw}, dnnl::memory::data_type::f32, layout);
    const dnnl::memory::desc vector({c}, dnnl::memory::data_type::f32, Tag::a);
    const auto flags = dnnl::normalization_flags::use_global_stats |
                       dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const dnnl::batch_normalization_forward::primitive_desc pd(
        engine, dnnl::prop_kind::forward_inference, x, x,
        static_cast<float>(lb::batch_norm_epsilon), flags);
    primitive = dnnl::batch_normalization_forward(pd);
    implementation = pd.impl_info_str();
    // Each operand on its own allocation, at its own multiple of 5 cache lines into the page
    // (not the harness's rule): no two share a page offset ("Placement", docs/measuring.md).
    std::mt19937 random(1);
    std::uniform_real_distribution<float> value(1.f, 3.f);
    const std::pair<int, dnnl::memory::desc> operands[] = {
        {DNNL_ARG_SRC, x},           {DNNL_ARG_DST, x},        {DNNL_ARG_MEAN, vector},
        {DNNL_ARG_VARIANCE, vector}, {DNNL_ARG_SCALE, vector}, {DNNL_ARG_SHIFT, vector}};
    for (const auto& [arg, desc] : operands) {
      buffers.push_back(std::make_unique<OwnBuffer>(desc.get_size(), buffers.size() * 5 * 64));
      float* data = buffers.back()->data();
      for (std::size_t i = 0; i < desc.get_size() / sizeof(float); ++i) data[i] = value(random);
      args[arg] = dnnl::memory(desc, engine, data);
    }
  }
  void run() {
    primitive.execute(stream, args);
    stream.wait();
  }
  std::string page_offsets() const {
    std::string text;
    for (const auto& buffer : buffers)
      text += (text.empty() ? "" : " ") + std::to_string(buffer->page_offset());
    return text;
  }
};

Tag tag_of(const std::string& layout) {
  static const std::map<std::string, Tag> tags = {
      {"nchw", Tag::nchw}, {"nhwc", Tag::nhwc}, {"nChw8c", Tag::nChw8c}, {"nChw16c", Tag::nChw16c}};
  const auto it = tags.find(layout);
  if (it == tags.end()) {
    std::fprintf(stderr, "onednn_batch_norm_bench: the backend chose layout '%s', unknown here\n",
                 layout.c_str());
    std::exit(2);
  }
  return it->second;
}

std::string note(const lb::Case& c, const std::string& key) {
  for (const auto& [k, v] : c.notes())
    if (k == key) return v;
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = lb::bench::threads_flag(argc, argv, "onednn_batch_norm_bench", 1);
  // ResNet-50 v1.5's batch norms at batch 1: channels and height (= width).
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {64, 112}, {64, 56},  {256, 56},  {128, 56}, {128, 28}, {512, 28},
      {256, 28}, {256, 14}, {1024, 14}, {512, 14}, {512, 7},  {2048, 7}};
  auto backend = lb::onednn::make_backend(threads);
  lb::Sampler sampler;
  sampler.rule.min_time_s = 0.2;
  sampler.rule.max_time_s = 0.5;
  const int rounds = 7;
  double worst = 0;
  std::printf("threads %d, warm, %d alternating rounds; times: median of round medians\n", threads,
              rounds);
  for (const auto& [c, hw] : shapes) {
    lb::Problem problem;
    problem.op =
        lb::MemoryProblem{lb::MemoryShape{lb::MemoryOp::batch_norm, {1, c, hw, hw}}, lb::Pass::fwd};
    lb::CaseOptions options;
    options.cache = lb::CacheMode::warm;
    auto harness_case = backend->prepare(problem, lb::make_inputs(problem, 1), options);
    const std::string layout = note(*harness_case, "layout");
    BarePrimitive bare(c, hw, tag_of(layout));
    std::vector<double> harness_medians, bare_medians;
    for (int round = 0; round < rounds; ++round) {
      harness_medians.push_back(
          sampler.measure([&] { return harness_case->run_timed(); }).median_s);
      bare_medians.push_back(
          sampler.measure([&] { return lb::bench::steady_seconds([&] { bare.run(); }); }).median_s);
    }
    const double harness = lb::summarize(harness_medians).median_s;
    const double alone = lb::summarize(bare_medians).median_s;
    worst = std::max(worst, harness / alone);
    std::printf(
        "bn_%lld_%lld %s: layerbench %.4f ms (%s; page offsets %s), bare loop %.4f ms (%s; "
        "page offsets %s), ratio %.2f\n",
        static_cast<long long>(c), static_cast<long long>(hw), layout.c_str(), harness * 1e3,
        harness_case->implementation().c_str(), note(*harness_case, "page_offsets").c_str(),
        alone * 1e3, bare.implementation.c_str(), bare.page_offsets().c_str(), harness / alone);
  }
  std::printf("worst ratio %.2f: %s\n", worst, worst <= 1.2 ? "within 1.2x" : "NOT within 1.2x");
  return worst <= 1.2 ? 0 : 1;
}
