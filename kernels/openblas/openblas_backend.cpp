#include "kernels/openblas/openblas_backend.hpp"

#include <stdexcept>

#include "kernels/openblas/openblas_case.hpp"

namespace lb::openblas {
namespace {

// What OpenBLAS cannot run, said before anything is allocated. A precision is never run as
// another, and a convolution is never lowered to a GEMM here (that would time im2col too).
std::optional<std::string> refusal(const Problem& problem) {
  if (problem.is_conv()) return "OpenBLAS has no convolution (a BLAS offers matrix products only)";
  if (problem.is_memory())
    return "OpenBLAS has no " + std::string(name(problem.memory().shape.op)) +
           " (a BLAS offers matrix products only)";
  if (problem.precision != Precision::fp32)
    return "OpenBLAS sgemm is FP32 only; " + std::string(name(problem.precision)) +
           " is not run as FP32";
  return std::nullopt;
}

class OpenblasBackend : public Backend {
 public:
  explicit OpenblasBackend(int threads)
      : threads_(threads), effective_threads_(apply_threads(threads)) {}

  std::string name() const override { return "openblas"; }
  std::string device() const override { return "cpu"; }

  std::optional<std::string> unsupported_reason(const Problem& problem) const override {
    return refusal(problem);
  }

  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>& inputs,
                                const CaseOptions& options) override {
    if (auto why = refusal(problem)) throw Unsupported(*why);
    const auto dims = tensor_dims(problem);
    if (inputs.size() != dims.inputs.size())
      throw std::invalid_argument("OpenBLAS prepare: wrong number of inputs for " +
                                  describe(problem));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (static_cast<std::int64_t>(inputs[i].data.size()) != element_count(dims.inputs[i]))
        throw std::invalid_argument("OpenBLAS prepare: input " + std::to_string(i) +
                                    " has the wrong size for " + describe(problem));
    return std::make_unique<GemmCase>(problem.gemm().shape, inputs, options.cache,
                                      options.memory_limit_bytes, threads_);
  }

  std::vector<std::pair<std::string, std::string>> context() const override {
    return {{"threads", std::to_string(effective_threads_)},
            {"openblas_config", config_text()},
            {"core", core_text()}};
  }

  int compute_threads() const override { return effective_threads_; }

 private:
  int threads_;
  int effective_threads_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(int threads) {
  return std::make_unique<OpenblasBackend>(threads);
}

}  // namespace lb::openblas
