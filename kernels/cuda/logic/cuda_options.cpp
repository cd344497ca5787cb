#include "kernels/cuda/logic/cuda_options.hpp"

#include <cmath>
#include <stdexcept>

namespace lb::cuda {

const std::vector<BackendOption>& option_declarations() {
  // The workspace's upper bound is a choice that keeps the MiB-to-bytes conversion far from
  // overflow: 2^24 MiB (16 TiB).
  static const std::vector<BackendOption> options = [] {
    BackendOption api = choice_option(
        "--cudnn-api",
        "cuDNN convolution API: graph (default) or legacy (cudnnConvolutionForward and its "
        "backward calls, for comparison with older frameworks)",
        "cudnn_api", {"graph", "legacy"});
    api.value_before_option_existed = "graph";  // files written before --cudnn-api existed
    BackendOption autotune_workspace = choice_option(
        "--autotune-workspace",
        "GPU convolution workspace when autotuning: free-memory (default: what the GPU has free, "
        "as PyTorch's benchmark mode) or limit (--workspace-mb)",
        "autotune_workspace", {"free-memory", "limit"});
    autotune_workspace.value_before_option_existed = "limit";
    BackendOption timing = choice_option(
        "--timing",
        "GPU points: events (default: CUDA events around the operation's launches) or graph (a "
        "CUDA graph of them, launch overhead out; the L2 flush stays outside the timing). CPU "
        "points are timed by the host's clock either way",
        "timing", {"events", "graph"});
    timing.value_before_option_existed = "events";
    BackendOption sustained = choice_option(
        "--sustained",
        "GPU GEMM points: off (default) or on (first run the GEMM until board power and SM clock "
        "settle, at most 120 s, and record its burst and sustained TFLOP/s)",
        "sustained", {"off", "on"});
    sustained.value_before_option_existed = "off";
    return std::vector<BackendOption>{
        choice_option("--layout", "GPU convolution layout: nhwc (default) or nchw", "layout",
                      {"nhwc", "nchw"}),
        api,
        number_option("--workspace-mb", "GPU workspace limit in MiB (default 32)", "workspace_mb",
                      32, 0, 1 << 24, "a number of MiB"),
        autotune_workspace,
        timing,
        sustained};
  }();
  return options;
}

namespace {

const BackendOption& declaration(const std::string& settings_key) {
  for (const BackendOption& option : option_declarations())
    if (option.settings_key == settings_key) return option;
  throw std::logic_error("the CUDA backend declares no option " + settings_key);
}

const nlohmann::json& value_of(const BackendOptionValues& values, const BackendOption& option) {
  const auto it = values.find(option.settings_key);
  return it == values.end() ? option.default_value : it->second;
}

std::string choice_of(const BackendOptionValues& values, const std::string& settings_key) {
  const BackendOption& option = declaration(settings_key);
  const nlohmann::json& value = value_of(values, option);
  for (const std::string& choice : option.choices)
    if (value == choice) return choice;
  throw std::invalid_argument(option.flag + " " + value.dump() + ": not a value it takes");
}

double number_of(const BackendOptionValues& values, const std::string& settings_key) {
  const BackendOption& option = declaration(settings_key);
  const nlohmann::json& value = value_of(values, option);
  if (!value.is_number() || !std::isfinite(value.get<double>()) ||
      value.get<double>() < option.min || value.get<double>() > option.max)
    throw std::invalid_argument(option.flag + " " + value.dump() + ": not " + option.unit +
                                " in its range");
  return value.get<double>();
}

}  // namespace

CudaOptions parse_options(const BackendOptionValues& values) {
  CudaOptions options;
  options.layout = choice_of(values, "layout") == "nchw" ? Layout::nchw : Layout::nhwc;
  options.cudnn_api =
      choice_of(values, "cudnn_api") == "legacy" ? CudnnApi::legacy : CudnnApi::graph;
  options.workspace_limit_bytes =
      static_cast<std::uint64_t>(number_of(values, "workspace_mb") * (1 << 20));
  options.autotune_workspace = choice_of(values, "autotune_workspace") == "limit"
                                   ? AutotuneWorkspace::limit
                                   : AutotuneWorkspace::free_memory;
  options.timing = choice_of(values, "timing") == "graph" ? GpuTiming::graph : GpuTiming::events;
  options.sustained = choice_of(values, "sustained") == "on";
  return options;
}

}  // namespace lb::cuda
