#include "kernels/openblas/openblas_library.hpp"

#include <stdexcept>
#include <vector>

#include "harness/platform.hpp"

namespace lb::openblas {
namespace {

template <class F>
void bind(void* handle, const char* symbol, F& function, std::string& missing) {
  function = reinterpret_cast<F>(platform::find_symbol(handle, symbol));
  if (!function) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
}

Library load() {
  // LAYERBENCH_OPENBLAS_LIBRARY: the file CMake found at configure time.
  const std::vector<std::string> names{LAYERBENCH_OPENBLAS_LIBRARY, "libopenblas.so.0"};
  std::string errors;
  for (const auto& name : names) {
    std::string error;
    void* handle = platform::load_library(name, error);
    if (!handle) {
      errors += (errors.empty() ? "" : "; ") + error;
      continue;
    }
    Library lib;
    std::string missing;
    bind(handle, "cblas_sgemm", lib.sgemm, missing);
    bind(handle, "openblas_set_num_threads", lib.set_num_threads, missing);
    bind(handle, "openblas_get_num_threads", lib.get_num_threads, missing);
    bind(handle, "openblas_get_num_procs", lib.get_num_procs, missing);
    bind(handle, "openblas_get_config", lib.get_config, missing);
    bind(handle, "openblas_get_corename", lib.get_corename, missing);
    if (missing.empty()) {
      lib.file = platform::library_path(handle);
      return lib;
    }
    errors += (errors.empty() ? "" : "; ") + name + ": not OpenBLAS (no " + missing + ")";
  }
  throw std::runtime_error("OpenBLAS cannot be loaded: " + errors);
}

}  // namespace

const Library& library() {
  static const Library loaded = load();  // a throw leaves it unset: the next call tries again
  return loaded;
}

}  // namespace lb::openblas
