// Batch norm, ReLU, add, pooling and softmax through cuDNN's legacy calls (deprecated in cuDNN 9
// but present in 9.19, and what TensorFlow and PyTorch's cuDNN paths call). Everything a backward
// pass derives from the forward (softmax's, ReLU's and max pooling's y; batch norm's saved
// statistics) is computed while preparing, as the frameworks keep it from their forward pass.
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_descriptors.hpp"
#include "kernels/cuda/cudnn_memory_bound_ops.hpp"
#include "kernels/cuda/memory_bound_case.hpp"

namespace lb::cuda {

namespace {

void set_tensor(cudnnTensorDescriptor_t d, const logic::TensorSpec& t, logic::ElementType type) {
  // logic::memory_unsupported has refused tensors beyond INT_MAX elements.
  const int dims[4] = {static_cast<int>(t.dims[0]), static_cast<int>(t.dims[1]),
                       static_cast<int>(t.dims[2]), static_cast<int>(t.dims[3])};
  const int strides[4] = {static_cast<int>(t.strides[0]), static_cast<int>(t.strides[1]),
                          static_cast<int>(t.strides[2]), static_cast<int>(t.strides[3])};
  LB_CUDNN(cudnnSetTensorNdDescriptor(d, cudnn_data_type(type), 4, dims, strides));
}

}  // namespace

LegacyMemoryDescriptors::LegacyMemoryDescriptors(const Problem& problem, Layout layout)
    : forward_(problem.memory().pass == Pass::fwd) {
  const MemoryProblem& m = problem.memory();
  const auto& s = m.shape;
  if (!logic::layout_applies(s.op)) layout = Layout::nchw;
  const auto dims = tensor_dims(problem);
  try {
    for (std::size_t i = 0; i < dims.inputs.size(); ++i) {
      inputs_.push_back(nullptr);
      LB_CUDNN(cudnnCreateTensorDescriptor(&inputs_.back()));
      set_tensor(inputs_.back(), logic::memory_tensor_spec(s, dims.inputs[i], layout),
                 logic::memory_input_type(m, i, problem.precision));
    }
    LB_CUDNN(cudnnCreateTensorDescriptor(&output_));
    set_tensor(output_, logic::memory_tensor_spec(s, dims.output, layout),
               logic::input_type(problem.precision));
    if (s.op == MemoryOp::max_pool || s.op == MemoryOp::avg_pool) {
      const auto w = static_cast<int>(s.window), p = static_cast<int>(s.pad),
                 st = static_cast<int>(s.stride);
      LB_CUDNN(cudnnCreatePoolingDescriptor(&pooling_));
      LB_CUDNN(cudnnSetPooling2dDescriptor(pooling_,
                                           s.op == MemoryOp::max_pool
                                               ? CUDNN_POOLING_MAX
                                               : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                           CUDNN_PROPAGATE_NAN, w, w, p, p, st, st));
    } else if (s.op == MemoryOp::relu) {
      LB_CUDNN(cudnnCreateActivationDescriptor(&activation_));
      LB_CUDNN(cudnnSetActivationDescriptor(activation_, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN,
                                            0.0));
    } else if (s.op == MemoryOp::add) {
      LB_CUDNN(cudnnCreateOpTensorDescriptor(&add_));
      LB_CUDNN(cudnnSetOpTensorDescriptor(add_, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                          CUDNN_PROPAGATE_NAN));
    }
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

LegacyMemoryDescriptors::~LegacyMemoryDescriptors() { release(); }

void LegacyMemoryDescriptors::release() noexcept {
  if (add_) cudnnDestroyOpTensorDescriptor(add_);
  if (activation_) cudnnDestroyActivationDescriptor(activation_);
  if (pooling_) cudnnDestroyPoolingDescriptor(pooling_);
  if (output_) cudnnDestroyTensorDescriptor(output_);
  for (cudnnTensorDescriptor_t d : inputs_)
    if (d) cudnnDestroyTensorDescriptor(d);
  add_ = nullptr, activation_ = nullptr, pooling_ = nullptr, output_ = nullptr;
  inputs_.clear();
}

std::array<std::int64_t, 4> LegacyMemoryDescriptors::pooled_dims() const {
  if (!pooling_) throw std::logic_error("not a pooling problem");
  int n = 0, c = 0, h = 0, w = 0;
  // Forward reads x; backward writes dx, which has x's shape.
  LB_CUDNN(cudnnGetPooling2dForwardOutputDim(pooling_, forward_ ? inputs_.at(0) : output_, &n, &c,
                                             &h, &w));
  return {n, c, h, w};
}

namespace {

// cuDNN's scaling factors are float for every non-double data type: out = 1 * op(...) + 0 * out.
const float one = 1.0f, zero = 0.0f;

class CudnnMemoryCase final : public MemoryCase {
 public:
  CudnnMemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                  const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  std::string implementation() const override { return "cudnn legacy " + call_; }
  std::string library() const override { return "cudnn"; }
  std::uint64_t workspace_bytes() const override { return workspace_.bytes() + reserve_.bytes(); }

 protected:
  void launch() override { LB_CUDNN(run()); }

 private:
  MemoryOp op() const { return problem().shape.op; }
  bool forward() const { return problem().pass == Pass::fwd; }
  bool training_forward() const { return problem().pass == Pass::fwd_training; }
  cudnnStatus_t run();
  // The forward's output into y_ (softmax, ReLU, max pooling backward), untimed.
  void prepare_forward_output(cudnnTensorDescriptor_t y_desc, std::int64_t y_elements);
  void prepare_batch_norm_statistics();
  // Batch norm training and backward through the Ex calls, as PyTorch's cuDNN batch norm: their
  // workspace and reserve space (the forward's, which backward reads) sized by cuDNN.
  void size_batch_norm_buffers();
  cudnnStatus_t batch_norm_forward_training(const void* scale, const void* shift);

  cudnnHandle_t handle_;
  LegacyMemoryDescriptors desc_;
  DeviceBuffer y_;  // the forward's output, for backward
  // Batch norm: the batch's statistics (training forward and backward), and backward's own
  DeviceBuffer saved_mean_, saved_inv_std_, d_scale_, d_shift_, zero_shift_;
  DeviceBuffer workspace_, reserve_;
  // PyTorch's choice: the persistent kernels for channels-last training, plain spatial otherwise.
  cudnnBatchNormMode_t batch_norm_mode_ = CUDNN_BATCHNORM_SPATIAL;
  std::string call_;
};

CudnnMemoryCase::CudnnMemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                                 const std::vector<HostTensor>& inputs,
                                 const CudaCaseOptions& options)
    : MemoryCase(std::move(context), problem, inputs, options),
      handle_(this->context().cudnn()),
      desc_(problem, options.layout) {
  switch (op()) {
    case MemoryOp::batch_norm: {
      if (!forward() && options.layout == Layout::nhwc)
        batch_norm_mode_ = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
      const std::string mode = batch_norm_mode_ == CUDNN_BATCHNORM_SPATIAL_PERSISTENT
                                   ? " (spatial persistent)"
                                   : " (spatial)";
      if (training_forward()) {
        call_ = "cudnnBatchNormalizationForwardTrainingEx" + mode;
        const auto bytes =
            static_cast<std::uint64_t>(problem.memory().shape.dims.at(1)) * sizeof(float);
        saved_mean_ = allocate(bytes), saved_inv_std_ = allocate(bytes);
        size_batch_norm_buffers();
        add_note("also_written", "the batch's mean and inverse deviation (C values each, FP32)");
      } else if (forward()) {
        call_ = "cudnnBatchNormalizationForwardInference (spatial)";
      } else {
        call_ = "cudnnBatchNormalizationBackwardEx" + mode;
        size_batch_norm_buffers();
        prepare_batch_norm_statistics();
      }
      if (!forward()) {
        add_note("cudnn_batch_norm_mode", mode.substr(2, mode.size() - 3));
        add_note("cudnn_workspace_bytes", std::to_string(workspace_.bytes()));
        add_note("cudnn_reserve_bytes", std::to_string(reserve_.bytes()));
      }
      break;
    }
    case MemoryOp::relu:
      // In place, x and y are one buffer with one descriptor, as cuDNN allows.
      call_ = forward() ? in_place() ? "cudnnActivationForward (relu, in place)"
                                     : "cudnnActivationForward (relu)"
                        : "cudnnActivationBackward (relu)";
      if (!forward()) prepare_forward_output(desc_.output(), spec_elements(output_spec()));
      break;
    case MemoryOp::add:
      call_ = in_place() ? "cudnnAddTensor (in place)" : "cudnnOpTensor (add, fp32 compute)";
      break;
    case MemoryOp::max_pool:
    case MemoryOp::avg_pool: {
      const bool max = op() == MemoryOp::max_pool;
      // The descriptors must describe the shape the harness validates against.
      const logic::TensorSpec& pooled = forward() ? output_spec() : input_spec(max ? 1 : 0);
      if (desc_.pooled_dims() != pooled.dims)
        throw LibraryError("cuDNN's pooling output dimensions differ from the problem's");
      call_ = std::string(forward() ? "cudnnPoolingForward" : "cudnnPoolingBackward") +
              (max ? " (max)" : " (average, padding excluded)");
      if (!forward() && max) prepare_forward_output(desc_.input(1), spec_elements(pooled));
      break;
    }
    case MemoryOp::softmax:
      call_ = forward() ? "cudnnSoftmaxForward (accurate, instance)"
                        : "cudnnSoftmaxBackward (accurate, instance)";
      if (!forward()) prepare_forward_output(desc_.output(), spec_elements(output_spec()));
      break;
    case MemoryOp::layer_norm:
    case MemoryOp::gelu_erf:
      throw std::invalid_argument("cuDNN's legacy API has no " + std::string(name(op())));
  }
  add_note("route", logic::name(logic::MemoryRoute::cudnn_legacy));
  add_note("cudnn_api", "legacy");
  add_note("cudnn_call", call_);
  // A first, untimed launch: a precision or shape cuDNN cannot run is refused here, with its
  // reason.
  if (const cudnnStatus_t status = run(); cudnn_not_supported(status))
    throw Unsupported("cuDNN's " + call_ + " cannot run this in " + std::string(name(precision())) +
                      ": " + cudnn_message(status));
  else
    LB_CUDNN(status);
  poison_output();
}

void CudnnMemoryCase::prepare_forward_output(cudnnTensorDescriptor_t y_desc,
                                             std::int64_t y_elements) {
  y_ = allocate(static_cast<std::uint64_t>(y_elements) * logic::element_bytes(data_type()));
  const void* x = input(0);
  switch (op()) {
    case MemoryOp::relu:
      LB_CUDNN(cudnnActivationForward(handle_, desc_.activation(), &one, desc_.input(0), x, &zero,
                                      y_desc, y_.get()));
      break;
    case MemoryOp::max_pool:
      LB_CUDNN(cudnnPoolingForward(handle_, desc_.pooling(), &one, desc_.input(0), x, &zero, y_desc,
                                   y_.get()));
      break;
    case MemoryOp::softmax:
      LB_CUDNN(cudnnSoftmaxForward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                                   &one, desc_.input(0), x, &zero, y_desc, y_.get()));
      break;
    default:
      throw std::logic_error("no forward output to prepare");
  }
  add_note("prepared", "the forward's output y, by the forward call (not timed)");
}

void CudnnMemoryCase::prepare_batch_norm_statistics() {
  const auto bytes = static_cast<std::uint64_t>(problem().shape.dims.at(1)) * sizeof(float);
  saved_mean_ = allocate(bytes), saved_inv_std_ = allocate(bytes);
  d_scale_ = allocate(bytes), d_shift_ = allocate(bytes), zero_shift_ = allocate(bytes);
  LB_CUDA(cudaMemsetAsync(zero_shift_.get(), 0, bytes, context().stream()));
  // Forward training writes y (into the output, poisoned again afterwards) and the batch's mean
  // and inverse deviation, which backward reads; no running averages (both null, as allowed).
  LB_CUDNN(batch_norm_forward_training(input(2), zero_shift_.get()));
  add_note("prepared",
           "the batch's mean and inverse deviation and the reserve space, by forward training "
           "(not timed)");
  add_note("also_written", "the scale and shift gradients (C values each, FP32)");
}

void CudnnMemoryCase::size_batch_norm_buffers() {
  const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;
  // x, y (and dy, dx) share one shape and layout; the vectors are FP32 1 x C x 1 x 1.
  const cudnnTensorDescriptor_t x = desc_.input(0), y = desc_.output(),
                                vectors = desc_.input(training_forward() ? 1 : 2);
  std::size_t forward_workspace = 0, backward_workspace = 0, reserve = 0;
  LB_CUDNN(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
      handle_, batch_norm_mode_, ops, x, nullptr, y, vectors, nullptr, &forward_workspace));
  LB_CUDNN(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle_, batch_norm_mode_, ops,
                                                                nullptr, x, &reserve));
  if (!training_forward())
    LB_CUDNN(cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle_, batch_norm_mode_, ops, x, y,
                                                               x, nullptr, y, vectors, nullptr,
                                                               &backward_workspace));
  const std::size_t workspace = std::max(forward_workspace, backward_workspace);
  if (workspace > 0) workspace_ = allocate(workspace);
  if (reserve > 0) reserve_ = allocate(reserve);
}

cudnnStatus_t CudnnMemoryCase::batch_norm_forward_training(const void* scale, const void* shift) {
  // {x} -> y and the batch's mean and inverse deviation; no running averages (both null, as
  // allowed). The vectors' descriptor is input 1 in training forward, 2 (gamma) in backward.
  return cudnnBatchNormalizationForwardTrainingEx(
      handle_, batch_norm_mode_, CUDNN_BATCHNORM_OPS_BN, &one, &zero, desc_.input(0), input(0),
      nullptr, nullptr, desc_.output(), output_buffer(), desc_.input(training_forward() ? 1 : 2),
      scale, shift, 1.0, nullptr, nullptr, batch_norm_epsilon, saved_mean_.get(),
      saved_inv_std_.get(), nullptr, workspace_.get(), workspace_.bytes(), reserve_.get(),
      reserve_.bytes());
}

cudnnStatus_t CudnnMemoryCase::run() {
  void* out = output_buffer();
  switch (op()) {
    case MemoryOp::batch_norm:
      if (training_forward())  // {x, gamma, beta} -> y, the statistics
        return batch_norm_forward_training(input(1), input(2));
      if (forward())  // {x, mean, variance, gamma, beta} -> y
        return cudnnBatchNormalizationForwardInference(
            handle_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, desc_.input(0), input(0), desc_.output(),
            out, desc_.input(1), input(3), input(4), input(1), input(2), batch_norm_epsilon);
      // {x, dy, gamma} -> dx and the scale and shift gradients; no y (no activation), as PyTorch
      return cudnnBatchNormalizationBackwardEx(
          handle_, batch_norm_mode_, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero,
          desc_.input(0), input(0), nullptr, nullptr, desc_.input(1), input(1), nullptr, nullptr,
          desc_.output(), out, desc_.input(2), input(2), nullptr, d_scale_.get(), d_shift_.get(),
          batch_norm_epsilon, saved_mean_.get(), saved_inv_std_.get(), nullptr, workspace_.get(),
          workspace_.bytes(), reserve_.get(), reserve_.bytes());
    case MemoryOp::relu:
      if (forward())  // {x} -> y
        return cudnnActivationForward(handle_, desc_.activation(), &one, desc_.input(0), input(0),
                                      &zero, desc_.output(), out);
      // {x, dy} -> dx, y from preparing
      return cudnnActivationBackward(handle_, desc_.activation(), &one, desc_.output(), y_.get(),
                                     desc_.input(1), input(1), desc_.input(0), input(0), &zero,
                                     desc_.output(), out);
    case MemoryOp::add:  // {a, b} -> a + b, b broadcast over the batch where its batch is 1
      if (in_place())    // a += b: cuDNN's C = alpha A + beta C with A = b and C = a
        return cudnnAddTensor(handle_, &one, desc_.input(1), input(1), &one, desc_.input(0), out);
      return cudnnOpTensor(handle_, desc_.add(), &one, desc_.input(0), input(0), &one,
                           desc_.input(1), input(1), &zero, desc_.output(), out);
    case MemoryOp::max_pool:
    case MemoryOp::avg_pool:
      if (forward())  // {x} -> y
        return cudnnPoolingForward(handle_, desc_.pooling(), &one, desc_.input(0), input(0), &zero,
                                   desc_.output(), out);
      if (op() == MemoryOp::max_pool)  // {x, dy} -> dx, y from preparing
        return cudnnPoolingBackward(handle_, desc_.pooling(), &one, desc_.input(1), y_.get(),
                                    desc_.input(1), input(1), desc_.input(0), input(0), &zero,
                                    desc_.output(), out);
      // {dy} -> dx. Average pooling's gradient depends on neither x nor y, which cuDNN still
      // takes: dy stands in for y and dx for x (same shapes, never read for this mode).
      return cudnnPoolingBackward(handle_, desc_.pooling(), &one, desc_.input(0), input(0),
                                  desc_.input(0), input(0), desc_.output(), out, &zero,
                                  desc_.output(), out);
    case MemoryOp::softmax:
      if (forward())  // {x} -> y over each row's last dimension
        return cudnnSoftmaxForward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                                   &one, desc_.input(0), input(0), &zero, desc_.output(), out);
      // {x, dy} -> dx, y from preparing
      return cudnnSoftmaxBackward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                                  &one, desc_.output(), y_.get(), desc_.input(1), input(1), &zero,
                                  desc_.output(), out);
    case MemoryOp::layer_norm:
    case MemoryOp::gelu_erf:
      break;
  }
  return CUDNN_STATUS_NOT_SUPPORTED;
}

}  // namespace

std::unique_ptr<Case> prepare_cudnn_memory_op(std::shared_ptr<DeviceContext> context,
                                              const Problem& problem,
                                              const std::vector<HostTensor>& inputs,
                                              const CudaCaseOptions& options) {
  return std::make_unique<CudnnMemoryCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
