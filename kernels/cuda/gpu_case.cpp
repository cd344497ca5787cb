#include "kernels/cuda/gpu_case.hpp"

#include <algorithm>
#include <chrono>

#include <nvtx3/nvToolsExt.h>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/engine_policy.hpp"
#include "kernels/cuda/logic/sustained.hpp"
#include "kernels/cuda/stream_hold.hpp"

namespace lb::cuda {

namespace {
// The events are members created during initialisation: the GPU must be current before that.
std::shared_ptr<DeviceContext> made_current(std::shared_ptr<DeviceContext> context) {
  context->make_current();
  return context;
}
}  // namespace

GpuCase::GpuCase(std::shared_ptr<DeviceContext> context, const CudaCaseOptions& options)
    : context_(made_current(std::move(context))),
      cold_(options.cache == CacheMode::cold),
      timing_(options.timing) {
  if (cold_)
    flush_ = DeviceBuffer(
        logic::flush_bytes(static_cast<std::uint64_t>(context_->properties().l2CacheSize)),
        context_->ledger());
}

double GpuCase::time_once() {
  using clock = std::chrono::steady_clock;
  const cudaStream_t stream = context_->stream();
  for (;;) {
    if (cold_) LB_CUDA(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream));
    const std::uint64_t hold_ns = hold_.next_hold_ns();
    const auto enqueue_start = clock::now();
    if (hold_ns > 0) LB_CUDA(hold_stream(stream, hold_ns));
    LB_CUDA(cudaEventRecord(start_.get(), stream));
    if (graph_)
      LB_CUDA(cudaGraphLaunch(graph_.get(), stream));
    else
      launch();
    LB_CUDA(cudaEventRecord(stop_.get(), stream));
    const auto enqueue_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - enqueue_start);
    LB_CUDA(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    LB_CUDA(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    const bool clean = hold_.record(hold_ns, static_cast<std::uint64_t>(enqueue_ns.count()));
    last_run_s_ = ms * 1e-3 / (graph_ ? graph_launches_ : 1);
    if (clean || !hold_.retry()) return last_run_s_;
  }
}

void GpuCase::read_nvml() {
  NvmlTelemetry& nvml = context_->nvml();
  const double start_s = nvml.now_s();
  readings_.push_back(nvml.read());
  last_reading_end_s_ = nvml.now_s();
  last_reading_cost_s_ = last_reading_end_s_ - start_s;
}

double GpuCase::run_timed() {
  context_->make_current();
  NvmlTelemetry& nvml = context_->nvml();
  if (sampling_ && logic::reading_due(nvml.now_s(), last_reading_end_s_, last_reading_cost_s_))
    read_nvml();
  const double start_s = nvml.now_s();
  const double seconds = time_once();
  if (sampling_) {
    spans_.push_back({start_s, nvml.now_s()});
    last_run_throttled_ = logic::span_throttled(readings_, spans_.back());
  }
  if (!first_run_done_) {
    first_run_done_ = true;
    clock_before_mhz_ = nvml.current_mhz();
  }
  return seconds;
}

// Captures the operation's launches on the stream (launch() enqueues without synchronising or
// allocating, so it can be captured); a capture the library refuses fails the point, naming the
// call. Later rounds reuse the graph.
void GpuCase::capture_graph() {
  const cudaStream_t stream = context_->stream();
  graph_launches_ =
      logic::launches_per_graph(cold_ ? CacheMode::cold : CacheMode::warm, last_run_s_);
  LB_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    for (int i = 0; i < graph_launches_; ++i) launch();
  } catch (...) {
    if (succeeded_or_cleared(cudaStreamEndCapture(stream, &graph)) && graph)
      cudaGraphDestroy(graph);
    throw;
  }
  LB_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  LB_CUDA(instantiated);
  graph_.reset(exec);
}

// The operation back to back, logic::launches_per_reading launches between NVML readings, until
// logic::settle says power and clock settled, the bound passed or a counter is missing. No L2
// flush: the sustained state is the device's under continuous load.
void GpuCase::run_until_settled(double gflop) {
  const cudaStream_t stream = context_->stream();
  NvmlTelemetry& nvml = context_->nvml();
  const logic::SettleCriterion criterion = logic::criterion_within(point_bound_s_);
  const int launches = logic::launches_per_reading(last_run_s_);
  std::vector<logic::NvmlReading> readings{nvml.read()};
  std::vector<logic::TimedRun> runs;
  logic::SettleVerdict verdict = logic::settle(readings, criterion);
  while (verdict.state == logic::SettleState::running) {
    LB_CUDA(cudaEventRecord(start_.get(), stream));
    for (int i = 0; i < launches; ++i) launch();
    LB_CUDA(cudaEventRecord(stop_.get(), stream));
    LB_CUDA(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    LB_CUDA(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    readings.push_back(nvml.read());
    runs.push_back({readings.back().time_s, ms * 1e-3});
    verdict = logic::settle(readings, criterion);
  }
  const auto rates = logic::burst_and_sustained(runs, gflop * launches, criterion.window_s);
  sustained_notes_ = logic::sustained_notes(verdict, rates, criterion,
                                            readings.back().time_s - readings.front().time_s);
}

void GpuCase::begin_samples(const std::string& point_name) {
  context_->make_current();
  if (sustained_gflop_ && sustained_notes_.empty()) run_until_settled(*sustained_gflop_);
  if (timing_ == GpuTiming::graph && !graph_) capture_graph();
  sampling_ = true;
  nvtxRangePushA(point_name.c_str());
  range_open_ = true;
}

void GpuCase::close_range() {
  if (range_open_) nvtxRangePop();
  range_open_ = false;
}

void GpuCase::end_samples() {
  if (sampling_) {
    sampling_ = false;
    read_nvml();
    run_load_window();
  }
  close_range();
}

// The operation back to back, a chunk of launches queued while NVML is read after the one
// before, until logic::load_window_done; the cache mode's flush is left out, as in any
// sustained load. Skipped where NVML gives neither power nor energy.
void GpuCase::run_load_window() {
  NvmlTelemetry& nvml = context_->nvml();
  if (!nvml.error().empty() || nvml.lost() ||
      (nvml.absent().count("power") && nvml.absent().count("energy_counter")))
    return;
  const cudaStream_t stream = context_->stream();
  const double unit_s = last_run_s_ * (graph_ ? graph_launches_ : 1);
  // A chunk outlasts the reading taken while it runs, so the queue never drains.
  const int units = logic::launches_per_reading(
      unit_s, std::max(logic::load_reading_interval_s, 2 * last_reading_cost_s_));
  const auto enqueue_chunk = [&](const Event& done) {
    for (int i = 0; i < units; ++i) {
      if (graph_)
        LB_CUDA(cudaGraphLaunch(graph_.get(), stream));
      else
        launch();
    }
    LB_CUDA(cudaEventRecord(done.get(), stream));
  };
  const Event* queued = &start_;
  const Event* next = &stop_;
  enqueue_chunk(*queued);
  std::vector<logic::NvmlReading> load{nvml.read()};
  while (!logic::load_window_done(load) && !nvml.lost()) {
    enqueue_chunk(*next);
    LB_CUDA(cudaEventSynchronize(queued->get()));
    load.push_back(nvml.read());
    std::swap(queued, next);
  }
  LB_CUDA(cudaEventSynchronize(queued->get()));
  load_ = logic::load_power(load, context_->idle_power_w());
}

std::optional<DeviceTelemetry> GpuCase::telemetry() const {
  const NvmlTelemetry& nvml = context_->nvml();
  auto absent = nvml.absent();
  if (!nvml.error().empty()) absent.emplace("nvml", nvml.error());
  return logic::summarize_telemetry(readings_, spans_, load_, std::move(absent), nvml.lost());
}

std::size_t GpuCase::autotune(
    std::size_t count, const std::function<void(std::size_t)>& select,
    const std::function<std::string(std::size_t)>& label, std::string& summary,
    DeviceBuffer& output,
    const std::function<std::optional<std::string>(std::size_t)>& rejects_output) {
  logic::AutotuneSteps steps;
  steps.select = select;
  steps.reset_timing = [this] { hold_ = logic::LaunchHold{}; };
  steps.launch = [this] { launch(); };
  steps.time_once = [this] { return time_once(); };
  steps.poison_output = [this, &output] { poison(*context_, output); };
  steps.label = label;
  steps.rejects_output = rejects_output;
  return logic::autotune(count, steps, summary);
}

std::vector<std::pair<std::string, std::string>> GpuCase::notes() const {
  NvmlTelemetry& clock = context_->nvml();
  auto notes = logic::clock_notes(clock.error(), clock_before_mhz_, clock.current_mhz(),
                                  clock.default_mhz());
  for (auto& note : hold_.notes()) notes.push_back(std::move(note));
  for (auto& note : logic::timing_notes(timing_, graph_launches_)) notes.push_back(std::move(note));
  for (const auto& note : sustained_notes_) notes.push_back(note);
  for (auto& note : logic::load_notes(load_)) notes.push_back(std::move(note));
  for (auto& note : case_notes()) notes.push_back(std::move(note));
  return notes;
}

std::uint64_t conv_workspace_limit(DeviceContext& context, const CudaCaseOptions& options,
                                   std::uint64_t tensor_bytes) {
  std::uint64_t available = 0;
  if (options.algo == AlgoChoice::autotune &&
      options.autotune_workspace == AutotuneWorkspace::free_memory) {
    const std::uint64_t free = context.available_bytes(options.memory_limit_bytes);
    available = free > tensor_bytes ? free - tensor_bytes : 0;
  }
  return logic::workspace_limit(options.autotune_workspace, options.algo,
                                options.workspace_limit_bytes, available);
}

void poison(DeviceContext& context, DeviceBuffer& buffer) {
  LB_CUDA(cudaMemsetAsync(buffer.get(), 0xFF, buffer.bytes(), context.stream()));
}

DeviceBuffer poisoned_output(DeviceContext& context, std::uint64_t bytes) {
  DeviceBuffer buffer(bytes, context.ledger());
  poison(context, buffer);
  return buffer;
}

DeviceBuffer upload_values(DeviceContext& context, const std::vector<float>& values,
                           logic::ElementType type) {
  const auto bytes = encode(values, type);
  DeviceBuffer buffer(bytes.size(), context.ledger());
  context.upload(buffer, bytes.data(), bytes.size());
  return buffer;
}

std::vector<float> download_values(DeviceContext& context, const DeviceBuffer& buffer,
                                   std::size_t count, logic::ElementType type) {
  std::vector<unsigned char> bytes(count * logic::element_bytes(type));
  context.make_current();
  context.download(bytes.data(), buffer, bytes.size());
  return decode(bytes, type);
}

HostTensor download_tensor(DeviceContext& context, const DeviceBuffer& buffer,
                           const logic::TensorSpec& spec, logic::ElementType type) {
  const auto& d = spec.dims;
  const auto count = static_cast<std::size_t>(d[0] * d[1] * d[2] * d[3]);
  HostTensor t;
  t.dims.assign(d.begin(), d.end());
  t.data = logic::from_strided(download_values(context, buffer, count, type), spec);
  return t;
}

}  // namespace lb::cuda
