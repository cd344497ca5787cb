#include "kernels/cuda/cuda_backend.hpp"

#include "harness/doctor/versions.hpp"
#include "harness/model/accounting.hpp"
#include "kernels/cuda/cublaslt_gemm.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_conv.hpp"
#include "kernels/cuda/cudnn_legacy_conv.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/logic/gemm_layout.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"
#include "kernels/cuda/memory_bound_case.hpp"

namespace lb::cuda {

namespace {

logic::CudnnRefusal refusal(cudnnStatus_t status) {
  switch (CUDNN_STATUS_CATEGORY(status)) {
    case CUDNN_STATUS_NOT_SUPPORTED:
      return logic::CudnnRefusal::not_supported;
    case CUDNN_STATUS_BAD_PARAM:
      return logic::CudnnRefusal::bad_param;
    default:
      return logic::CudnnRefusal::other;
  }
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, const CudaOptions& options)
      : context_(std::make_shared<DeviceContext>(device)), options_(options) {}

  std::string name() const override { return "cuda"; }
  std::string device() const override {
    return to_string(DeviceId{std::string(gpu_kind), context_->device()});
  }

  std::optional<std::string> unsupported_reason(const Problem& problem) const override {
    const auto& p = context_->properties();
    if (problem.is_memory()) return logic::memory_unsupported(problem, p.major, p.minor);
    if (auto why =
            logic::precision_unsupported(problem.precision, problem.is_conv(), p.major, p.minor))
      return why;
    if (!problem.is_conv() && problem.precision == Precision::fp8)
      return logic::fp8_alignment_problem(logic::tn_plan(problem.gemm().shape).executed);
    return std::nullopt;
  }

  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>& inputs,
                                const CaseOptions& case_options) override {
    if (auto why = unsupported_reason(problem)) throw Unsupported(*why);
    const CudaCaseOptions options{case_options, options_};
    context_->make_current();
    context_->ensure_fits(memory_needed(problem, options), options.memory_limit_bytes,
                          "the point " + describe(problem));
    try {
      if (problem.is_memory()) return prepare_memory_op(context_, problem, inputs, options);
      if (!problem.is_conv()) return prepare_cublaslt_gemm(context_, problem, inputs, options);
      return options.cudnn_api == CudnnApi::legacy
                 ? prepare_cudnn_legacy_conv(context_, problem, inputs, options)
                 : prepare_cudnn_conv(context_, problem, inputs, options);
    } catch (const CudnnError& e) {
      if (logic::refusal_is_unsupported(refusal(e.status), problem.precision))
        throw Unsupported("cuDNN refuses this in " + std::string(lb::name(problem.precision)) +
                          ": " + e.what());
      throw;
    }
  }

  std::vector<std::pair<std::string, std::string>> context() const override;

 private:
  // Inputs and output at their storage sizes (the point's memory_bytes), the workspace limit
  // (memory-bound cases take no workspace, but what a backward derives from the forward) and,
  // cold, the L2 flush buffer.
  std::uint64_t memory_needed(const Problem& problem, const CudaCaseOptions& options) const {
    std::uint64_t bytes =
        memory_bytes(problem) +
        (problem.is_memory() ? logic::memory_extra_bytes(problem) : options.workspace_limit_bytes);
    if (options.cache == CacheMode::cold)
      bytes += logic::flush_bytes(static_cast<std::uint64_t>(context_->properties().l2CacheSize));
    return bytes;
  }

  std::shared_ptr<DeviceContext> context_;
  CudaOptions options_;
};

std::vector<std::pair<std::string, std::string>> CudaBackend::context() const {
  const cudaDeviceProp& p = context_->properties();
  std::vector<std::pair<std::string, std::string>> facts;
  // The driver's CUDA version, which no library row has (context.libraries' "driver" is the
  // driver's own version); the libraries' versions are in context.libraries alone.
  int driver = 0;
  succeeded_or_cleared(cudaDriverGetVersion(&driver));
  facts.emplace_back("cuda_driver", doctor::cuda_version_text(driver));
  facts.emplace_back("gpu_name", p.name);
  facts.emplace_back("compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor));
  facts.emplace_back("sm_count", std::to_string(p.multiProcessorCount));
  facts.emplace_back("memory_bytes", std::to_string(p.totalGlobalMem));
  facts.emplace_back("l2_bytes", std::to_string(p.l2CacheSize));
  int clock_khz = 0, memory_clock_khz = 0;
  if (succeeded_or_cleared(
          cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, context_->device())))
    facts.emplace_back("sm_clock_max_mhz", std::to_string(clock_khz / 1000));
  if (succeeded_or_cleared(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate,
                                                  context_->device())))
    facts.emplace_back("memory_clock_max_mhz", std::to_string(memory_clock_khz / 1000));
  facts.emplace_back("memory_bus_bits", std::to_string(p.memoryBusWidth));
  // NVML names the device by it: `run` asks NVML which other processes share this GPU.
  char bus_id[32] = {};
  if (succeeded_or_cleared(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, context_->device())))
    facts.emplace_back("pci_bus_id", bus_id);
  NvmlTelemetry& clock = context_->nvml();
  if (clock.error().empty()) {
    if (auto mhz = clock.default_mhz())
      facts.emplace_back("sm_clock_default_mhz", std::to_string(*mhz));
  } else {
    facts.emplace_back("clock", "NVML not available: " + clock.error());
  }
  return facts;
}

}  // namespace

int device_count(std::string& error) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    error = cuda_error_text(rc);
    return 0;
  }
  if (count == 0) error = "the CUDA runtime reports no device";
  return count;
}

std::unique_ptr<Backend> make_backend(int device_index, const CudaOptions& options) {
  std::string error;
  const int count = device_count(error);
  if (device_index < 0 || device_index >= count)
    throw LibraryError("gpu:" + std::to_string(device_index) + " is not available: " +
                       (count == 0 ? error : std::to_string(count) + " GPU(s) found"));
  return std::make_unique<CudaBackend>(device_index, options);
}

}  // namespace lb::cuda
