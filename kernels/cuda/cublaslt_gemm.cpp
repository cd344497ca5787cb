#include "kernels/cuda/cublaslt_gemm.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "harness/os/platform.hpp"
#include "kernels/cuda/cublaslt_descriptors.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/gpu_case.hpp"
#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/gemm_layout.hpp"

namespace lb::cuda {

namespace {

using Preference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

// "algo 21 tile 18 stages 12 splitk 1": what the algorithm is, for the results file.
std::string describe_algo(const cublasLtMatmulAlgo_t& algo) {
  std::int32_t id = 0, splitk = 1;
  std::uint32_t tile = 0, stages = 0;
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                                       &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                       sizeof stages, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                       sizeof splitk, &written);
  return "algo " + std::to_string(id) + " tile " + std::to_string(tile) + " stages " +
         std::to_string(stages) + " splitk " + std::to_string(splitk);
}

class CublasLtGemmCase final : public GpuCase {
 public:
  CublasLtGemmCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                   const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  HostTensor output() override;
  std::string implementation() const override {
    return "cublaslt " + describe_algo(algos_[chosen_].algo);
  }
  std::string library() const override { return "cublaslt"; }
  std::uint64_t workspace_bytes() const override { return algos_[chosen_].workspaceSize; }

 protected:
  void launch() override {
    // C is null: with beta 0 it is never read.
    LB_CUBLAS(cublasLtMatmul(handle_, desc_.get(), &alpha_, lt_a_.get(), layouts_.a.get(),
                             lt_b_.get(), layouts_.b.get(), &beta_, nullptr, layouts_.c.get(),
                             c_.get(), layouts_.c.get(), &algos_[chosen_].algo, workspace_.get(),
                             workspace_.bytes(), context().stream()));
  }
  std::vector<std::pair<std::string, std::string>> case_notes() const override { return notes_; }

 private:
  bool find_algorithms(const CudaCaseOptions& options, cublasComputeType_t compute);

  GemmShape shape_;
  Precision precision_;
  logic::LtGemm lt_;
  cublasLtHandle_t handle_;
  const float alpha_ = 1.0f, beta_ = 0.0f;                        // beta 0: no C, only D is written
  DeviceBuffer lt_a_, lt_b_, c_, a_scale_, b_scale_, workspace_;  // lt_a_: our B, lt_b_: our A
  MatmulDesc desc_;
  LtLayouts layouts_;
  std::vector<cublasLtMatmulHeuristicResult_t> algos_;
  std::size_t chosen_ = 0;
  std::string compute_name_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

CublasLtGemmCase::CublasLtGemmCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                                   const std::vector<HostTensor>& inputs,
                                   const CudaCaseOptions& options)
    : GpuCase(std::move(context), options),
      shape_(problem.gemm().shape),
      precision_(problem.precision),
      handle_(this->context().cublaslt()) {
  if (inputs.size() != 2) throw std::invalid_argument("a GEMM expects 2 inputs");
  const logic::ElementType in_type = logic::input_type(precision_),
                           out_type = logic::output_type(precision_);
  std::vector<float> a = inputs[0].data, b = inputs[1].data;
  GemmShape executed = shape_;
  if (precision_ == Precision::fp8) {
    const logic::TnPlan plan = logic::tn_plan(shape_);
    if (plan.transpose_a)
      logic::transpose_batched(inputs[0].data.data(), a.data(), shape_.batch, shape_.k, shape_.m);
    if (plan.transpose_b)
      logic::transpose_batched(inputs[1].data.data(), b.data(), shape_.batch, shape_.k, shape_.n);
    executed = plan.executed;
    notes_.emplace_back("fp8_layout", std::string("TN; transposed on the host before upload: ") +
                                          (plan.transpose_a ? (plan.transpose_b ? "A and B" : "A")
                                                            : (plan.transpose_b ? "B" : "none")));
    notes_.emplace_back("fp8_scales", "A and B scale 1.0: the inputs are already E4M3 values");
    // As torch._scaled_mm by default (use_fast_accum=False): FP8 products accumulate in FP32
    // throughout, not in the faster, less precise Tensor Core accumulator.
    notes_.emplace_back("fp8_fast_accum", "off");
  }
  lt_ = logic::to_column_major(executed);
  lt_b_ = upload_values(this->context(), a, in_type);
  lt_a_ = upload_values(this->context(), b, in_type);
  c_ = poisoned_output(this->context(),
                       static_cast<std::uint64_t>(shape_.batch * shape_.m * shape_.n) *
                           logic::element_bytes(out_type));

  layouts_ = matrix_layouts(lt_, precision_);

  // COMPUTE_32F is FP32 math unless an emulation strategy is chosen: one set in the environment
  // would turn an fp32 point into BF16x9 emulation.
  if (precision_ == Precision::fp32 && platform::getenv_opt("CUBLAS_EMULATION_STRATEGY"))
    throw Unsupported(
        "CUBLAS_EMULATION_STRATEGY is set: cuBLASLt could emulate the fp32 GEMM; unset it");
  const bool found = find_algorithms(options, preferred_compute_type(precision_));
  if (!found)
    throw Unsupported("cuBLASLt has no algorithm for this GEMM in " +
                      std::string(name(precision_)) + " (compute type " +
                      compute_type_name(preferred_compute_type(precision_)) + ")");
  std::size_t workspace = 0;
  for (const auto& r : algos_) workspace = std::max(workspace, r.workspaceSize);
  workspace_ = DeviceBuffer(workspace, this->context().ledger());

  notes_.emplace_back("cublas_compute_type", compute_name_);
  notes_.emplace_back("cublaslt_heuristic_choice", describe_algo(algos_.front().algo));
  if (options.algo == AlgoChoice::autotune && algos_.size() > 1) {
    std::string timings;
    autotune(
        algos_.size(), [this](std::size_t i) { chosen_ = i; },
        [this](std::size_t i) { return describe_algo(algos_[i].algo); }, timings, c_);
    notes_.emplace_back("cublaslt_autotune", timings);
  }
  notes_.emplace_back("cublaslt_algo", describe_algo(algos_[chosen_].algo));
  notes_.emplace_back("algo_choice", logic::choice_note(options.algo, options.implementation));
  if (options.sustained) sustain_before_samples(flop_count(problem) / 1e9, options.time_bound_s);
}

// Creates the matmul descriptor and asks the heuristic; false when it has no algorithm.
bool CublasLtGemmCase::find_algorithms(const CudaCaseOptions& options,
                                       cublasComputeType_t compute) {
  std::optional<Fp8Scales> scales;
  if (precision_ == Precision::fp8) {
    // One allocation per scale, as a framework's tensors are: cuBLASLt's FP8 kernels refused a
    // B scale 4 bytes into A's buffer (docs/gpu-check.md).
    const float one = 1.0f;
    for (DeviceBuffer* scale : {&a_scale_, &b_scale_})
      if (!scale->get()) {
        *scale = DeviceBuffer(sizeof one, context().ledger());
        context().upload(*scale, &one, sizeof one);
      }
    scales = Fp8Scales{static_cast<const float*>(a_scale_.get()),
                       static_cast<const float*>(b_scale_.get())};
  }
  std::optional<MatmulDesc> desc = matmul_desc(lt_, compute, scales ? &*scales : nullptr);
  if (!desc) return false;
  desc_ = std::move(*desc);
  // Recorded once the type is final: the caller may retry with another one.
  compute_name_ = compute_type_name(compute);
  Preference preference;
  LB_CUBLAS(cublasLtMatmulPreferenceCreate(preference.out()));
  const std::uint64_t workspace_limit = options.workspace_limit_bytes;
  LB_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference.get(),
                                                 CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspace_limit, sizeof workspace_limit));
  const int wanted = options.algo == AlgoChoice::autotune || !options.implementation.empty()
                         ? static_cast<int>(autotune_candidates)
                         : 1;
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(wanted));
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle_, desc_.get(), layouts_.a.get(), layouts_.b.get(), layouts_.c.get(), layouts_.c.get(),
      preference.get(), wanted, results.data(), &returned);
  if (compute_not_offered(status)) return false;
  LB_CUBLAS(status);
  for (int i = 0; i < returned; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) algos_.push_back(results[i]);
  if (!algos_.empty() && !options.implementation.empty()) {
    // A later round: the first round's algorithm alone.
    std::vector<std::string> names;
    for (const auto& r : algos_) names.push_back("cublaslt " + describe_algo(r.algo));
    const auto named = algos_[*logic::named_candidate(names, options.implementation, "cuBLASLt")];
    algos_ = {named};
  }
  return !algos_.empty();
}

HostTensor CublasLtGemmCase::output() {
  HostTensor t;
  t.dims = {shape_.batch, shape_.m, shape_.n};
  // cuBLASLt's column-major N x M result is our row-major M x N: no reordering.
  t.data =
      download_values(context(), c_, static_cast<std::size_t>(shape_.batch * shape_.m * shape_.n),
                      logic::output_type(precision_));
  return t;
}

}  // namespace

std::unique_ptr<Case> prepare_cublaslt_gemm(std::shared_ptr<DeviceContext> context,
                                            const Problem& problem,
                                            const std::vector<HostTensor>& inputs,
                                            const CudaCaseOptions& options) {
  return std::make_unique<CublasLtGemmCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
