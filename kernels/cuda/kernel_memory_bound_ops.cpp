// Layer norm and GELU (erf) through layerbench's own kernels (memory_bound_kernels.cu): cuDNN 9 has
// them only as graph-API operations (logic/memory_bound_ops.hpp says why they are not used).
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
  bool forward() const { return problem().pass == Pass::fwd; }

  RowLaunch rows_;                   // layer norm
  ColumnLaunch columns_;             // layer norm backward's gamma and beta gradients
  logic::KernelLaunch elementwise_;  // GELU
  std::int64_t count_ = 0;
  DeviceBuffer mean_, rstd_;     // layer norm backward: the forward's statistics
  DeviceBuffer dgamma_, dbeta_;  // layer norm backward: computed, timed, not validated
};

KernelMemoryCase::KernelMemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                                   const std::vector<HostTensor>& inputs,
                                   const CudaCaseOptions& options)
    : MemoryCase(std::move(context), problem, inputs, options) {
  const auto& shape = this->problem().shape;
  if (layer_norm()) {
    const std::int64_t rows = logic::row_count(shape), length = logic::row_length(shape);
    const logic::KernelLaunch l = logic::row_launch(rows, length);
    rows_ = RowLaunch{l.blocks, l.threads, length};
    add_note("kernel_launch", std::to_string(l.blocks) + " blocks (one per row) x " +
                                  std::to_string(l.threads) + " threads");
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
    elementwise_ =
        logic::elementwise_launch(count_, this->context().properties().multiProcessorCount);
    add_note("kernel_launch", std::to_string(elementwise_.blocks) + " blocks x " +
                                  std::to_string(elementwise_.threads) + " threads, grid-stride");
  }
  add_note("accumulation", "fp32");
  launch();  // a launch error shows here, while preparing
  poison_output();
}

std::string KernelMemoryCase::implementation() const {
  return std::string("layerbench kernel ") + (layer_norm() ? "layer_norm" : "gelu_erf") +
         (forward() ? "_forward" : "_backward") +
         (layer_norm() ? (forward() ? " (one block per row)"
                                    : " (one block per row, then dgamma and dbeta by columns)")
                       : " (grid-stride)");
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
  if (forward())  // {x} -> y
    LB_CUDA(gelu_forward(data_type(), elementwise_.blocks, elementwise_.threads, input(0),
                         output_buffer(), count_, stream));
  else  // {x, dy} -> dx
    LB_CUDA(gelu_backward(data_type(), elementwise_.blocks, elementwise_.threads, input(0),
                          input(1), output_buffer(), count_, stream));
}

}  // namespace

std::unique_ptr<Case> prepare_kernel_memory_op(std::shared_ptr<DeviceContext> context,
                                               const Problem& problem,
                                               const std::vector<HostTensor>& inputs,
                                               const CudaCaseOptions& options) {
  const MemoryOp op = problem.memory().shape.op;
  if (op != MemoryOp::layer_norm && op != MemoryOp::gelu_erf)
    throw std::invalid_argument("layerbench has no GPU kernel for " + std::string(name(op)));
  return std::make_unique<KernelMemoryCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
