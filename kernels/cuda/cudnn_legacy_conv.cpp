#include "kernels/cuda/cudnn_legacy_conv.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/model/accounting.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_descriptors.hpp"
#include "kernels/cuda/gpu_case.hpp"
#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/legacy_conv.hpp"

namespace lb::cuda {

// logic/legacy_conv.hpp mirrors cuDNN's enums without its header; these keep the mirror honest.
static_assert(static_cast<int>(CUDNN_DEFAULT_MATH) ==
              static_cast<int>(logic::LegacyMathType::default_math));
static_assert(static_cast<int>(CUDNN_TENSOR_OP_MATH) ==
              static_cast<int>(logic::LegacyMathType::tensor_op));
static_assert(static_cast<int>(CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) ==
              static_cast<int>(logic::LegacyMathType::tensor_op_allow_conversion));
static_assert(static_cast<int>(CUDNN_FMA_MATH) == static_cast<int>(logic::LegacyMathType::fma));

namespace {

int as_int(std::int64_t v) {
  if (v > std::numeric_limits<int>::max())
    throw Unsupported("a dimension does not fit the legacy API's int");
  return static_cast<int>(v);
}

std::array<int, 4> as_ints(const std::array<std::int64_t, 4>& v) {
  return {as_int(v[0]), as_int(v[1]), as_int(v[2]), as_int(v[3])};
}

void set_tensor(cudnnTensorDescriptor_t d, const logic::TensorSpec& t, cudnnDataType_t type) {
  const auto dims = as_ints(t.dims), strides = as_ints(t.strides);
  LB_CUDNN(cudnnSetTensorNdDescriptor(d, type, 4, dims.data(), strides.data()));
}

}  // namespace

LegacyConvDescriptors::LegacyConvDescriptors(const ConvShape& shape, Precision precision,
                                             Layout layout)
    : spec_(logic::conv_graph_spec(shape, layout)) {
  const auto math = logic::legacy_math_type(precision);
  if (!math)
    throw Unsupported("the cuDNN legacy API has no " + std::string(name(precision)) +
                      " convolution");
  const cudnnDataType_t type = cudnn_data_type(logic::input_type(precision));
  try {
    LB_CUDNN(cudnnCreateTensorDescriptor(&x_));
    LB_CUDNN(cudnnCreateTensorDescriptor(&y_));
    LB_CUDNN(cudnnCreateFilterDescriptor(&w_));
    LB_CUDNN(cudnnCreateConvolutionDescriptor(&conv_));
    set_tensor(x_, spec_.x, type);
    set_tensor(y_, spec_.y, type);
    // A filter has no strides: its format says where C sits (NHWC = K,R,S,C/groups in memory),
    // which is what conv_graph_spec's filter strides describe for the same layout.
    const auto w = as_ints(spec_.w.dims);
    LB_CUDNN(cudnnSetFilterNdDescriptor(
        w_, type, layout == Layout::nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4, w.data()));
    // FP32 accumulation for every precision, as on the graph path.
    LB_CUDNN(cudnnSetConvolution2dDescriptor(conv_, as_int(shape.pad_h), as_int(shape.pad_w),
                                             as_int(shape.stride_h), as_int(shape.stride_w),
                                             as_int(shape.dil_h), as_int(shape.dil_w),
                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    LB_CUDNN(cudnnSetConvolutionGroupCount(conv_, as_int(shape.groups)));
    LB_CUDNN(cudnnSetConvolutionMathType(conv_, static_cast<cudnnMathType_t>(*math)));
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

LegacyConvDescriptors::~LegacyConvDescriptors() { release(); }

void LegacyConvDescriptors::release() noexcept {
  if (conv_) cudnnDestroyConvolutionDescriptor(conv_);
  if (w_) cudnnDestroyFilterDescriptor(w_);
  if (y_) cudnnDestroyTensorDescriptor(y_);
  if (x_) cudnnDestroyTensorDescriptor(x_);
  conv_ = nullptr, w_ = nullptr, y_ = nullptr, x_ = nullptr;
}

std::array<std::int64_t, 4> LegacyConvDescriptors::forward_output_dims() const {
  int dims[4] = {};
  LB_CUDNN(cudnnGetConvolutionNdForwardOutputDim(conv_, x_, w_, 4, dims));
  return {dims[0], dims[1], dims[2], dims[3]};
}

namespace {

struct Candidate {
  int algo = 0;
  logic::LegacyMathType math = logic::LegacyMathType::default_math;
  std::uint64_t workspace = 0;
};

class CudnnLegacyConvCase final : public GpuCase {
 public:
  CudnnLegacyConvCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                      const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  HostTensor output() override {
    return download_tensor(context(), output_buffer_, *tensors_.output, type_);
  }
  std::string implementation() const override {
    return "cudnn legacy " + logic::legacy_candidate_label(pass_, chosen().algo, chosen().math);
  }
  std::string library() const override { return "cudnn"; }
  std::uint64_t workspace_bytes() const override { return chosen().workspace; }

 protected:
  void launch() override;
  std::vector<std::pair<std::string, std::string>> case_notes() const override { return notes_; }

 private:
  const Candidate& chosen() const { return candidates_[chosen_]; }
  // Makes candidate i the one launch() runs: the descriptor takes the math type cuDNN listed the
  // algorithm with (host-side only).
  void select(std::size_t i);
  std::vector<logic::LegacyAlgoResult> heuristic_results();
  // The workspace `algo` needs with the descriptor's current math type, or cuDNN's refusal.
  cudnnStatus_t workspace_size(int algo, std::size_t& bytes) const;
  void find_candidates(Precision precision, std::uint64_t tensor_bytes,
                       const CudaCaseOptions& options);
  void choose(const CudaCaseOptions& options);

  cudnnHandle_t handle_;
  Pass pass_;
  LegacyConvDescriptors desc_;
  logic::PassTensors tensors_;
  logic::ElementType type_;
  std::vector<Candidate> candidates_;
  std::size_t chosen_ = 0;
  std::vector<DeviceBuffer> input_buffers_;
  DeviceBuffer output_buffer_, workspace_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

CudnnLegacyConvCase::CudnnLegacyConvCase(std::shared_ptr<DeviceContext> context,
                                         const Problem& problem,
                                         const std::vector<HostTensor>& inputs,
                                         const CudaCaseOptions& options)
    : GpuCase(std::move(context), options),
      handle_(this->context().cudnn()),
      pass_(problem.conv().pass),
      desc_(problem.conv().shape, problem.precision, options.layout),
      tensors_(logic::pass_tensors(desc_.spec(), pass_)),
      type_(logic::input_type(problem.precision)) {
  if (inputs.size() != tensors_.inputs.size())
    throw std::invalid_argument("convolution expects " + std::to_string(tensors_.inputs.size()) +
                                " inputs");
  // The descriptors must describe the shape the harness validates against.
  if (desc_.forward_output_dims() != desc_.spec().y.dims)
    throw LibraryError("cuDNN's forward output dimensions differ from the problem's (" +
                       describe(problem) + ")");

  find_candidates(problem.precision, memory_bytes(problem), options);

  for (std::size_t i = 0; i < inputs.size(); ++i)
    input_buffers_.push_back(upload_values(
        this->context(), logic::to_strided(inputs[i].data, *tensors_.inputs[i]), type_));
  const auto& out = tensors_.output->dims;
  output_buffer_ = poisoned_output(this->context(),
                                   out[0] * out[1] * out[2] * out[3] * logic::element_bytes(type_));
  std::uint64_t workspace = 0;
  for (const auto& c : candidates_) workspace = std::max(workspace, c.workspace);
  workspace_ = DeviceBuffer(workspace, this->context().ledger());

  choose(options);
}

void CudnnLegacyConvCase::select(std::size_t i) {
  chosen_ = i;
  LB_CUDNN(cudnnSetConvolutionMathType(desc_.conv(), static_cast<cudnnMathType_t>(chosen().math)));
}

cudnnStatus_t CudnnLegacyConvCase::workspace_size(int algo, std::size_t& bytes) const {
  switch (pass_) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:
      return cudnnGetConvolutionForwardWorkspaceSize(
          handle_, desc_.x(), desc_.w(), desc_.conv(), desc_.y(),
          static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes);
    case Pass::bwd_data:
      return cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle_, desc_.w(), desc_.y(), desc_.conv(), desc_.x(),
          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
    case Pass::bwd_weights:
      return cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle_, desc_.x(), desc_.y(), desc_.conv(), desc_.w(),
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
  }
  throw std::invalid_argument("unknown pass");
}

// The three perf structs share their fields; one conversion serves them all.
template <typename Perf>
std::vector<logic::LegacyAlgoResult> results_of(
    const std::vector<Perf>& perf, int returned,
    const std::function<cudnnStatus_t(const Perf&, std::size_t&)>& workspace) {
  std::vector<logic::LegacyAlgoResult> results;
  for (int i = 0; i < std::min<int>(returned, static_cast<int>(perf.size())); ++i) {
    const Perf& p = perf[i];
    logic::LegacyAlgoResult r;
    r.algo = static_cast<int>(p.algo);
    r.math = static_cast<logic::LegacyMathType>(p.mathType);
    if (p.status != CUDNN_STATUS_SUCCESS) {
      r.failure = cudnnGetErrorString(p.status);
    } else {
      std::size_t bytes = 0;
      if (const cudnnStatus_t status = workspace(p, bytes); status != CUDNN_STATUS_SUCCESS)
        r.failure = std::string("no workspace size: ") + cudnnGetErrorString(status);
      r.workspace_bytes = bytes;
    }
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<logic::LegacyAlgoResult> CudnnLegacyConvCase::heuristic_results() {
  // The workspace is asked with the math type cuDNN listed the algorithm with, as launch() will
  // run it (select() sets the chosen one's before any launch).
  auto workspace = [&](const auto& perf, std::size_t& bytes) {
    LB_CUDNN(cudnnSetConvolutionMathType(desc_.conv(), perf.mathType));
    return workspace_size(static_cast<int>(perf.algo), bytes);
  };
  auto refuse = [&](cudnnStatus_t status) {
    if (cudnn_not_supported(status))
      throw Unsupported("the cuDNN legacy API cannot run this convolution: " +
                        cudnn_message(status));
    LB_CUDNN(status);
  };
  int count = 0, returned = 0;
  switch (pass_) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd: {
      LB_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &count));
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(count));
      refuse(cudnnGetConvolutionForwardAlgorithm_v7(handle_, desc_.x(), desc_.w(), desc_.conv(),
                                                    desc_.y(), count, &returned, perf.data()));
      return results_of<cudnnConvolutionFwdAlgoPerf_t>(perf, returned, workspace);
    }
    case Pass::bwd_data: {
      LB_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle_, &count));
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<std::size_t>(count));
      refuse(cudnnGetConvolutionBackwardDataAlgorithm_v7(
          handle_, desc_.w(), desc_.y(), desc_.conv(), desc_.x(), count, &returned, perf.data()));
      return results_of<cudnnConvolutionBwdDataAlgoPerf_t>(perf, returned, workspace);
    }
    case Pass::bwd_weights: {
      LB_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle_, &count));
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<std::size_t>(count));
      refuse(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          handle_, desc_.x(), desc_.y(), desc_.conv(), desc_.w(), count, &returned, perf.data()));
      return results_of<cudnnConvolutionBwdFilterAlgoPerf_t>(perf, returned, workspace);
    }
  }
  throw std::invalid_argument("unknown pass");
}

void CudnnLegacyConvCase::find_candidates(Precision precision, std::uint64_t tensor_bytes,
                                          const CudaCaseOptions& options) {
  const auto results = heuristic_results();
  // Autotuning times every algorithm that may run, as cudnnFind* does for TensorFlow and PyTorch.
  const std::size_t wanted =
      options.algo == AlgoChoice::autotune || !options.implementation.empty() ? results.size() : 1;
  const std::uint64_t limit = conv_workspace_limit(context(), options, tensor_bytes);
  notes_.emplace_back("workspace_limit_mib", std::to_string(limit >> 20));
  const auto selection = logic::select_legacy_algos(pass_, precision, results, limit, wanted);
  notes_.emplace_back("cudnn_api", "legacy");
  notes_.emplace_back("cudnn_algos_rejected", std::to_string(selection.rejected));
  if (selection.rejected) notes_.emplace_back("cudnn_first_rejection", selection.first_rejection);
  if (selection.accepted.empty())
    throw Unsupported(
        "the cuDNN legacy API offers no algorithm for this convolution in " +
        std::string(name(precision)) +
        (selection.rejected ? " (first rejected: " + selection.first_rejection + ")" : ""));
  std::vector<std::size_t> order = selection.accepted;
  if (!options.implementation.empty()) {
    // A later round: the first round's algorithm alone (`wanted` kept every one the rule allows).
    std::vector<std::string> names;
    for (const std::size_t i : order)
      names.push_back("cudnn legacy " +
                      logic::legacy_candidate_label(pass_, results[i].algo, results[i].math));
    order = {order[*logic::named_candidate(names, options.implementation, "cuDNN")]};
  }
  for (const std::size_t i : order)
    candidates_.push_back(Candidate{results[i].algo, results[i].math, results[i].workspace_bytes});
  const Candidate& first = candidates_.front();
  notes_.emplace_back("cudnn_heuristic_choice", logic::legacy_algo_name(pass_, first.algo) + " (" +
                                                    std::string(logic::name(first.math)) + ")");
}

void CudnnLegacyConvCase::choose(const CudaCaseOptions& options) {
  select(0);
  if (options.algo == AlgoChoice::autotune && candidates_.size() > 1) {
    std::string timings;
    const std::size_t best = autotune(
        candidates_.size(), [this](std::size_t i) { select(i); },
        [this](std::size_t i) {
          return logic::legacy_candidate_label(pass_, candidates_[i].algo, candidates_[i].math);
        },
        timings, output_buffer_);
    select(best);
    notes_.emplace_back("cudnn_autotune", timings);
  }
  const Candidate& c = chosen();
  notes_.emplace_back("cudnn_algo", logic::legacy_algo_name(pass_, c.algo));
  notes_.emplace_back("cudnn_math_type", std::string(logic::name(c.math)));
  notes_.emplace_back("tensor_cores",
                      logic::tensor_cores_note(c.math, context().properties().major));
  notes_.emplace_back("algo_choice", logic::choice_note(options.algo, options.implementation));
  notes_.emplace_back("layout", options.layout == Layout::nhwc ? "nhwc" : "nchw");
}

void CudnnLegacyConvCase::launch() {
  const float alpha = 1.0f, beta = 0.0f;  // float scaling factors for every non-double data type
  void* in0 = input_buffers_[0].get();
  void* in1 = input_buffers_[1].get();
  void* out = output_buffer_.get();
  const int algo = chosen().algo;
  switch (pass_) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd:  // {x, w} -> y
      LB_CUDNN(cudnnConvolutionForward(handle_, &alpha, desc_.x(), in0, desc_.w(), in1,
                                       desc_.conv(), static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                       workspace_.get(), workspace_.bytes(), &beta, desc_.y(),
                                       out));
      return;
    case Pass::bwd_data:  // {dy, w} -> dx
      LB_CUDNN(cudnnConvolutionBackwardData(
          handle_, &alpha, desc_.w(), in1, desc_.y(), in0, desc_.conv(),
          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace_.get(), workspace_.bytes(),
          &beta, desc_.x(), out));
      return;
    case Pass::bwd_weights:  // {x, dy} -> dw
      LB_CUDNN(cudnnConvolutionBackwardFilter(
          handle_, &alpha, desc_.x(), in0, desc_.y(), in1, desc_.conv(),
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace_.get(), workspace_.bytes(),
          &beta, desc_.w(), out));
      return;
  }
}

}  // namespace

std::unique_ptr<Case> prepare_cudnn_legacy_conv(std::shared_ptr<DeviceContext> context,
                                                const Problem& problem,
                                                const std::vector<HostTensor>& inputs,
                                                const CudaCaseOptions& options) {
  return std::make_unique<CudnnLegacyConvCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
