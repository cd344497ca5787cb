// Layer norm, GELU (erf), ReLU and add through layerbench's own kernels (memory_bound_kernels.cu):
// cuDNN 9 has the first two only as graph-API operations, and its legacy ReLU and add are slower
// than a vectorised elementwise kernel (logic/memory_bound_ops.hpp says more).
#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/memory_bound_case.hpp"
#include "kernels/cuda/memory_bound_kernels.hpp"

namespace lb::cuda {

namespace {

class KernelMemoryCase final : public MemoryCase {
 public:
  KernelMemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                   const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  std::string implementation() const override;
  // The CUDA backend's own kernels: named after the backend, so the point keeps the device's
  // original key (harness/results/point.cpp keyed_device) like its cuDNN and cuBLASLt points.
  std::string library() const override { return "cuda"; }

 protected:
  void launch() override;

 private:
  bool layer_norm() const { return problem().shape.op == MemoryOp::layer_norm; }
  bool batch_norm() const { return problem().shape.op == MemoryOp::batch_norm; }
  bool forward() const { return problem().pass == Pass::fwd; }
  // The elementwise op this problem runs (not layer norm).
  Elementwise elementwise_op() const;
  const char* kernel_name() const;

  RowLaunch rows_;                 // layer norm
  ColumnLaunch columns_;           // layer norm backward's gamma and beta gradients
  ElementwiseLaunch elementwise_;  // GELU, ReLU, add
  std::int64_t count_ = 0;
  std::int64_t b_period_ = 0;              // add: b's elements (fewer than a's when broadcast)
  std::int64_t channels_ = 0, inner_ = 0;  // batch norm: C, and 1 (NHWC) or H x W (NCHW)
  DeviceBuffer mean_, rstd_;               // layer norm backward: the forward's statistics
  DeviceBuffer dgamma_, dbeta_;            // layer norm backward: computed, timed, not validated
};

KernelMemoryCase::KernelMemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                                   const std::vector<HostTensor>& inputs,
                                   const CudaCaseOptions& options)
    : MemoryCase(std::move(context), problem, inputs, options) {
  const auto& shape = this->problem().shape;
  if (layer_norm()) {
    const std::int64_t rows = logic::row_count(shape), length = logic::row_length(shape);
    const logic::KernelLaunch l = logic::row_launch(rows, length);
    logic::RowPlan plan = logic::layer_norm_row_plan(length, logic::element_bytes(data_type()));
    // The register kernels read whole 16-byte vectors: cudaMalloc's alignment, checked.
    bool aligned = true;
    for (std::size_t i = 0; i < 3; ++i)  // {x, gamma, beta} or {x, dy, gamma}
      aligned = aligned && reinterpret_cast<std::uintptr_t>(input(i)) % 16 == 0;
    if (!aligned) plan = logic::RowPlan{l.threads, 0};
    rows_ = RowLaunch{l.blocks, plan.threads, length, plan.vectors_per_thread};
    add_note("kernel_launch",
             std::to_string(l.blocks) + " blocks (one per row) x " + std::to_string(plan.threads) +
                 " threads" +
                 (plan.vectors_per_thread > 0
                      ? ", the row in registers (" + std::to_string(plan.vectors_per_thread) +
                            " 16-byte vectors a thread)"
                      : ", striding over the row (it does not split into 16-byte vectors)"));
    if (!forward()) {
      mean_ = allocate(static_cast<std::uint64_t>(rows) * sizeof(float));
      rstd_ = allocate(static_cast<std::uint64_t>(rows) * sizeof(float));
      if (rows > 0)
        LB_CUDA(layer_norm_statistics(
            data_type(), rows_, input(0), static_cast<float*>(mean_.get()),
            static_cast<float*>(rstd_.get()), static_cast<float>(layer_norm_epsilon),
            this->context().stream()));
      add_note("prepared",
               "the rows' mean and inverse deviation, by a statistics kernel (not timed)");
      const logic::ColumnReduction c = logic::column_reduction_launch(rows, length);
      columns_ = ColumnLaunch{c.column_blocks, c.row_blocks, rows, length, c.rows_per_block};
      dgamma_ = allocate(static_cast<std::uint64_t>(length) * sizeof(float));
      dbeta_ = allocate(static_cast<std::uint64_t>(length) * sizeof(float));
      // As PyTorch's layer norm backward: the parameters' gradients are part of the timed work.
      add_note("computes", "dx, and dgamma and dbeta (a column-reduction kernel; dx validated)");
    }
  } else {
    count_ = element_count(shape.dims);
    b_period_ = shape.op == MemoryOp::add ? spec_elements(input_spec(1)) : count_;
    if (batch_norm()) {  // inference only (logic::memory_route)
      const logic::TensorSpec& x = input_spec(0);
      channels_ = x.dims[1];
      inner_ = x.strides[1] == 1 ? 1 : x.dims[2] * x.dims[3];
      // The vectors hold consecutive channels (NHWC) or one channel's run (NCHW).
      b_period_ = inner_ == 1 ? channels_ : inner_;
    }
    const logic::VectorLaunch l =
        logic::elementwise_launch(count_, logic::element_bytes(data_type()),
                                  this->context().properties().multiProcessorCount);
    elementwise_ = ElementwiseLaunch{l.blocks, l.threads, l.vectors_per_thread};
    const int width = logic::vector_width(logic::element_bytes(data_type()));
    const bool split = b_period_ != count_ && b_period_ % width != 0;
    add_note("kernel_launch",
             std::to_string(l.blocks) + " blocks x " + std::to_string(l.threads) +
                 " threads, grid-stride, " +
                 (split ? std::string("scalar loads and stores (the broadcast period splits a "
                                      "16-byte vector)")
                        : std::to_string(l.vectors_per_thread) +
                              " 16-byte vectors a thread an iteration, " +
                              std::to_string(count_ % width) + " tail elements in scalars"));
  }
  add_note("route", logic::name(logic::MemoryRoute::kernel));
  add_note("kernel", kernel_name());
  add_note("accumulation", "fp32");
  launch();  // a launch error shows here, while preparing
  poison_output();
}

Elementwise KernelMemoryCase::elementwise_op() const {
  switch (problem().shape.op) {
    case MemoryOp::relu:
      return forward() ? Elementwise::relu_forward : Elementwise::relu_backward;
    case MemoryOp::gelu_erf:
      return forward() ? Elementwise::gelu_forward : Elementwise::gelu_backward;
    default:  // add: its backward is the same add of two gradients
      return Elementwise::add;
  }
}

const char* KernelMemoryCase::kernel_name() const {
  switch (problem().shape.op) {
    case MemoryOp::layer_norm:
      return forward() ? "layer_norm_forward" : "layer_norm_backward";
    case MemoryOp::batch_norm:
      return "batch_norm_inference";
    case MemoryOp::relu:
      return forward() ? "relu_forward" : "relu_backward";
    case MemoryOp::gelu_erf:
      return forward() ? "gelu_erf_forward" : "gelu_erf_backward";
    default:
      return "add";
  }
}

std::string KernelMemoryCase::implementation() const {
  return std::string("layerbench kernel ") + kernel_name() +
         (layer_norm()   ? (forward() ? " (one block per row)"
                                      : " (one block per row, then dgamma and dbeta by columns)")
          : batch_norm() ? " (per-channel scale and shift, vectorised, grid-stride)"
                         : " (vectorised, grid-stride)");
}

void KernelMemoryCase::launch() {
  const cudaStream_t stream = context().stream();
  const auto eps = static_cast<float>(layer_norm_epsilon);
  if (layer_norm()) {
    if (rows_.rows == 0) return;
    if (forward())  // {x, gamma, beta} -> y
      LB_CUDA(layer_norm_forward(data_type(), rows_, input(0), static_cast<const float*>(input(1)),
                                 static_cast<const float*>(input(2)), output_buffer(), eps,
                                 stream));
    else {  // {x, dy, gamma} -> dx, and dgamma and dbeta beside it
      const auto* mean = static_cast<const float*>(mean_.get());
      const auto* rstd = static_cast<const float*>(rstd_.get());
      LB_CUDA(layer_norm_backward(data_type(), rows_, input(0), input(1),
                                  static_cast<const float*>(input(2)), mean, rstd, output_buffer(),
                                  stream));
      LB_CUDA(layer_norm_parameter_gradients(data_type(), columns_, input(0), input(1), mean, rstd,
                                             static_cast<float*>(dgamma_.get()),
                                             static_cast<float*>(dbeta_.get()), stream));
    }
    return;
  }
  if (elementwise_.blocks == 0) return;
  if (batch_norm()) {  // {x, mean, variance, gamma, beta} -> y
    const auto vector = [&](std::size_t i) { return static_cast<const float*>(input(i)); };
    LB_CUDA(batch_norm_inference(data_type(), elementwise_, input(0), vector(1), vector(2),
                                 vector(3), vector(4), output_buffer(), count_, channels_, inner_,
                                 static_cast<float>(batch_norm_epsilon), stream));
    return;
  }
  // {x} -> y; {x, dy} -> dx; add {a, b} -> a + b (in place: into a)
  const bool unary = forward() && problem().shape.op != MemoryOp::add;
  LB_CUDA(elementwise(data_type(), elementwise_op(), elementwise_, input(0),
                      unary ? nullptr : input(1), output_buffer(), count_, b_period_, stream));
}

}  // namespace

std::unique_ptr<Case> prepare_kernel_memory_op(std::shared_ptr<DeviceContext> context,
                                               const Problem& problem,
                                               const std::vector<HostTensor>& inputs,
                                               const CudaCaseOptions& options) {
  static_assert(elementwise_vectors_per_thread == logic::elementwise_vectors_per_thread);
  const MemoryOp op = problem.memory().shape.op;
  if (logic::memory_route(problem.memory()) != logic::MemoryRoute::kernel)
    throw std::invalid_argument("layerbench has no GPU kernel for " + std::string(name(op)));
  return std::make_unique<KernelMemoryCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
