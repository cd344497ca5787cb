#pragma once
// What every GPU case shares: timing one launch (or, with --timing graph, a CUDA graph of
// launches) with CUDA events on the context's stream, the L2 flush for cold-cache runs, the
// NVML readings between a point's samples and the load window after them.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/graph_timing.hpp"
#include "kernels/cuda/logic/launch_hold.hpp"
#include "kernels/cuda/logic/telemetry.hpp"

namespace lb::cuda {

// How many of cuBLASLt's candidates --algo autotune times: its top 8. The cuDNN convolution's
// pool has its own bound (logic/conv_pool.hpp).
inline constexpr std::size_t autotune_candidates = 8;

class GpuCase : public Case {
 public:
  // Allocates the flush buffer in cold mode; the caller has checked that the point fits.
  GpuCase(std::shared_ptr<DeviceContext> context, const CudaCaseOptions& options);
  // Closes the NVTX range a sample that threw left open.
  ~GpuCase() override { close_range(); }

  // [cold: flush L2] -> hold the stream -> record start -> launch -> record stop -> wait for
  // stop -> elapsed. The flush and the hold are enqueued before the start event, so neither is
  // part of the measurement; the hold keeps the host's enqueue latency out of it
  // (logic/launch_hold.hpp), and a run whose enqueue outlasted its hold is measured again.
  // Once the samples begin, NVML is read before a sample's flush whenever logic::reading_due
  // says so, outside the measured interval, and each sample's span is kept to judge throttling.
  // With --timing graph the samples launch the graph instead and return its time over the
  // launches it holds.
  double run_timed() final;
  // Opens the NVTX range `point_name` (closed by end_samples) for Nsight Systems and Compute;
  // first runs until settled where sustain_before_samples asked, and with --timing graph
  // captures the graph (logic::launches_per_graph launches).
  void begin_samples(const std::string& point_name) final;
  // Reads NVML once more (closing the last samples' spans), runs the load window for the
  // point's energy (logic::load_power) and closes the NVTX range.
  void end_samples() final;
  bool last_run_throttled() const final { return last_run_throttled_; }
  std::optional<DeviceTelemetry> telemetry() const final;
  // The clock readings (before = after the first run, after = read here, at the end of the
  // measurement), the launch hold's facts, the timing mode and the load window's figures,
  // followed by the case's own notes.
  std::vector<std::pair<std::string, std::string>> notes() const final;

 protected:
  // Enqueue the operation once on context().stream(); no synchronisation, no allocation.
  virtual void launch() = 0;
  virtual std::vector<std::pair<std::string, std::string>> case_notes() const = 0;
  // Times each of `count` candidates (select(i) makes candidate i the one launch() runs) in the
  // case's cache mode, each with a fresh launch hold, as logic::autotune orders it. Leaves the
  // fastest selected with a fresh hold and `output` poisoned again, and returns its index.
  // Where `rejects_output` is set, the fastest whose output it accepts (logic::AutotuneSteps).
  std::size_t autotune(
      std::size_t count, const std::function<void(std::size_t)>& select,
      const std::function<std::string(std::size_t)>& label, std::string& summary,
      DeviceBuffer& output,
      const std::function<std::optional<std::string>(std::size_t)>& rejects_output = {});

  DeviceContext& context() const { return *context_; }
  // Before its samples, run the operation (`gflop` a launch) until power and clock settle, and
  // record the burst and sustained rates (logic/sustained.hpp); the GEMM case's --sustained.
  void sustain_before_samples(double gflop, double point_bound_s) {
    sustained_gflop_ = gflop, point_bound_s_ = point_bound_s;
  }

 private:
  struct GraphExecDestroy {
    void operator()(cudaGraphExec_t graph) const { cudaGraphExecDestroy(graph); }
  };

  double time_once();
  void capture_graph();
  void run_until_settled(double gflop);
  void read_nvml();
  void run_load_window();
  void close_range();

  std::shared_ptr<DeviceContext> context_;
  bool cold_;
  DeviceBuffer flush_;
  Event start_, stop_;
  logic::LaunchHold hold_;
  bool first_run_done_ = false;
  GpuTiming timing_;
  double last_run_s_ = 0;  // the last run's time, for the graph's launch count
  int graph_launches_ = 1;
  std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDestroy> graph_;
  std::optional<double> sustained_gflop_;
  double point_bound_s_ = 0;
  std::vector<std::pair<std::string, std::string>> sustained_notes_;
  std::optional<unsigned> clock_before_mhz_;
  bool sampling_ = false, last_run_throttled_ = false, range_open_ = false;
  std::vector<logic::NvmlReading> readings_;
  std::vector<logic::SampleSpan> spans_;
  double last_reading_end_s_ = 0, last_reading_cost_s_ = 0;
  logic::LoadPower load_;
};

// The workspace limit of a convolution whose candidates are found before its `tensor_bytes` of
// inputs and output are allocated (logic::workspace_limit, with what the GPU may still give).
std::uint64_t conv_workspace_limit(DeviceContext& context, const CudaCaseOptions& options,
                                   std::uint64_t tensor_bytes);

// A new output buffer of `bytes` filled with 0xFF bytes, which is NaN in FP32, FP16 and BF16: an
// element the library never writes then fails validation (which scans every element).
DeviceBuffer poisoned_output(DeviceContext& context, std::uint64_t bytes);
// Fill an existing buffer with those 0xFF bytes again (enqueued on the context's stream).
void poison(DeviceContext& context, DeviceBuffer& buffer);

// Upload canonical host values to a new device buffer in the given storage type.
DeviceBuffer upload_values(DeviceContext& context, const std::vector<float>& values,
                           logic::ElementType type);
// Read `count` values of the given storage type back as floats.
std::vector<float> download_values(DeviceContext& context, const DeviceBuffer& buffer,
                                   std::size_t count, logic::ElementType type);
// Read a strided 4-d tensor back as a canonical host tensor (logical dims, packed).
HostTensor download_tensor(DeviceContext& context, const DeviceBuffer& buffer,
                           const logic::TensorSpec& spec, logic::ElementType type);

}  // namespace lb::cuda
