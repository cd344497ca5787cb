// The plugin's one exported symbol (plugin_api.hpp); the rest of it is hidden.
#include <string>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_probe.hpp"
#include "kernels/cuda/plugin_api.hpp"

extern "C" __attribute__((visibility("default"))) const lb::cuda::PluginApi*
layerbench_cuda_plugin() {
  static const std::string id = lb::cuda::build_id();
  static const lb::cuda::PluginApi api{id.c_str(), &lb::cuda::probe_devices,
                                       &lb::cuda::make_backend};
  return &api;
}
