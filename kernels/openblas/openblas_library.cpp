#include "kernels/openblas/openblas_library.hpp"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

#include "harness/os/platform.hpp"

namespace lb::openblas {
namespace {

// OpenBLAS (0.3.21's pthread build) starts its worker threads as it loads, as many as
// OPENBLAS_NUM_THREADS says (else the processors) less one, and each mallocs its work buffer as it
// starts, retrying forever where that fails; exit() then waits for it. Loaded with one thread,
// it starts none: apply_threads starts them once their room is checked (openblas_case.cpp).
class OneThreadWhileLoading {
 public:
  OneThreadWhileLoading() : was_(platform::getenv_opt(variable)) { setenv(variable, "1", 1); }
  ~OneThreadWhileLoading() {
    if (was_)
      setenv(variable, was_->c_str(), 1);
    else
      unsetenv(variable);
  }
  OneThreadWhileLoading(const OneThreadWhileLoading&) = delete;
  OneThreadWhileLoading& operator=(const OneThreadWhileLoading&) = delete;

 private:
  static constexpr const char* variable = "OPENBLAS_NUM_THREADS";
  std::optional<std::string> was_;
};

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
    void* handle = nullptr;
    {
      const OneThreadWhileLoading one_thread;
      handle = platform::load_library(name, error);
    }
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
