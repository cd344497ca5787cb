// The CUDA backend's plugin, once cuDNN and cuBLAS have loaded (if one has not, its own finding
// says why): the loader's message, and the file at fault where it can be told.
#include "harness/doctor/checks/check.hpp"
#include "harness/doctor/loader_message.hpp"

namespace lb::doctor {

void check_cuda_plugin(const CheckContext& c, Diagnosis& d) {
  const PluginInfo& plugin = c.s.nvidia.cuda_plugin;
  if (!c.s.nvidia.cuda_build || plugin.loaded || !c.s.nvidia.cudnn.loaded ||
      !c.s.nvidia.cublas.loaded)
    return;
  Finding f{
      Severity::error, "cuda", "the CUDA backend cannot be loaded (" + plugin.error + ")", {}};
  std::string file = file_in_loader_message(plugin.error);
  if (file == plugin.path) file.clear();  // the plugin itself, or a symbol one of them lacks
  const std::string symbol = undefined_symbol_in_loader_message(plugin.error);
  const bool cudnn =
      file.empty() ? symbol.rfind("cudnn", 0) == 0 : file.find("/libcudnn") != std::string::npos;
  const bool cublas =
      file.empty() ? symbol.rfind("cublas", 0) == 0 : file.find("/libcublas") != std::string::npos;
  if (file.empty() && cudnn) file = c.s.nvidia.cudnn.path;
  if (file.empty() && cublas) file = c.s.nvidia.cublas.path;
  if (!file.empty()) {
    if (!symbol.empty()) f.message += ": " + file + " lacks " + symbol;
    const std::string release =
        cudnn    ? needed_release(c, "cuDNN", c.s.nvidia.cudnn, decode_cudnn_version)
        : cublas ? needed_release(c, "cuBLAS", c.s.nvidia.cublas, decode_cublas_version)
                 : "the CUDA toolkit and cuDNN layerbench was built with";
    f.fixes = {broken_file_fix(c, file, release)};
  } else {
    f.fixes = {
        "Rebuild layerbench (cmake --build) or reinstall it (cmake --install): the binary "
        "needs its CUDA backend " +
        plugin.path + ", whole and from the same build."};
  }
  d.findings.push_back(f);
}

}  // namespace lb::doctor
