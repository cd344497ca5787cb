#pragma once
// The CUDA backend's own `run` options (--layout, --cudnn-api, --workspace-mb, --timing, ...):
// what it declares to the CLI (harness/api/backend_descriptor.hpp) and the typed values its cases
// use. Pure logic, built and tested in every build, so a CPU-only build's tests check the
// declarations too.
#include <cstdint>
#include <vector>

#include "harness/api/backend_descriptor.hpp"

namespace lb::cuda {

enum class Layout { nhwc, nchw };  // convolution layout; oneDNN chooses its own ("any")
// cuDNN convolutions through the graph API, or the legacy calls older frameworks use.
enum class CudnnApi { graph, legacy };
// What workspace an autotuned convolution may take: the GPU's free memory (as PyTorch's benchmark
// mode gives cuDNN) or the --workspace-mb limit (logic/engine_policy.hpp's workspace_limit).
enum class AutotuneWorkspace { free_memory, limit };
// How a sample is launched between its CUDA events: the operation's own launches, or a CUDA graph
// of them (logic/graph_timing.hpp).
enum class GpuTiming { events, graph };

struct CudaOptions {
  Layout layout = Layout::nhwc;
  CudnnApi cudnn_api = CudnnApi::graph;
  std::uint64_t workspace_limit_bytes = 32ull << 20;
  AutotuneWorkspace autotune_workspace = AutotuneWorkspace::free_memory;
  GpuTiming timing = GpuTiming::events;
  // --sustained on: a GEMM point first runs until power and clock settle (logic/sustained.hpp).
  bool sustained = false;
};

// What one CUDA case is prepared with: the harness's options and the backend's own.
struct CudaCaseOptions : CaseOptions, CudaOptions {};

// --layout, --cudnn-api, --workspace-mb, --autotune-workspace, --timing and --sustained, recorded
// under the settings keys "layout", "cudnn_api", "workspace_mb", "autotune_workspace", "timing"
// and "sustained" (a file from before the last three was measured under "limit", "events", "off").
const std::vector<BackendOption>& option_declarations();

// The typed options from values checked against option_declarations(); a key left out takes its
// default. Throws std::invalid_argument naming the flag for a value the declarations refuse.
CudaOptions parse_options(const BackendOptionValues& values);

}  // namespace lb::cuda
