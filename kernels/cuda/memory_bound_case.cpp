#include "kernels/cuda/memory_bound_case.hpp"

#include <stdexcept>

#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {

std::int64_t spec_elements(const logic::TensorSpec& spec) {
  return spec.dims[0] * spec.dims[1] * spec.dims[2] * spec.dims[3];
}

MemoryCase::MemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                       const std::vector<HostTensor>& inputs, const CudaCaseOptions& options)
    : GpuCase(std::move(context), options),
      problem_(problem.memory()),
      precision_(problem.precision) {
  const auto dims = tensor_dims(problem);
  if (inputs.size() != dims.inputs.size())
    throw std::invalid_argument(std::string(name(problem_.shape.op)) + " expects " +
                                std::to_string(dims.inputs.size()) + " inputs");
  const Layout layout = logic::layout_applies(problem_.shape.op) ? options.layout : Layout::nchw;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (static_cast<std::int64_t>(inputs[i].data.size()) != element_count(dims.inputs[i]))
      throw std::invalid_argument("input " + std::to_string(i) + " has the wrong size for " +
                                  describe(problem));
    input_specs_.push_back(logic::memory_tensor_spec(problem_.shape, dims.inputs[i], layout));
    inputs_.push_back(upload_values(
        this->context(), logic::to_strided(inputs[i].data, input_specs_.back()), input_type(i)));
  }
  output_spec_ = logic::memory_tensor_spec(problem_.shape, dims.output, layout);
  if (runs_in_place(problem_)) {  // the output has the first input's shape, layout and type
    first_input_ =
        encode(logic::to_strided(inputs.front().data, input_specs_.front()), input_type(0));
    add_note("in_place", "the output overwrites the first input");
  } else {
    output_ = allocate(static_cast<std::uint64_t>(spec_elements(output_spec_)) *
                       logic::element_bytes(data_type()));
  }
  poison_output();
  if (logic::layout_applies(problem_.shape.op))
    add_note("layout", layout == Layout::nhwc ? "nhwc" : "nchw");
}

logic::ElementType MemoryCase::input_type(std::size_t i) const {
  return logic::memory_input_type(problem_, i, precision_);
}

void MemoryCase::poison_output() {
  if (in_place()) return;
  LB_CUDA(cudaMemsetAsync(output_.get(), 0xFF, output_.bytes(), context().stream()));
}

DeviceBuffer MemoryCase::allocate(std::uint64_t bytes) const {
  return DeviceBuffer(bytes, context().ledger());
}

HostTensor MemoryCase::output() {
  HostTensor t;
  t.dims = tensor_dims(Problem{problem_, precision_}).output;
  const auto count = static_cast<std::size_t>(spec_elements(output_spec_));
  if (in_place()) {
    context().upload(inputs_.front(), first_input_->data(), first_input_->size());
    launch();
  }
  const DeviceBuffer& result = in_place() ? inputs_.front() : output_;
  t.data =
      logic::from_strided(download_values(context(), result, count, data_type()), output_spec_);
  return t;
}

std::unique_ptr<Case> prepare_memory_op(std::shared_ptr<DeviceContext> context,
                                        const Problem& problem,
                                        const std::vector<HostTensor>& inputs,
                                        const CudaCaseOptions& options) {
  if (logic::memory_route(problem.memory()) == logic::MemoryRoute::kernel)
    return prepare_kernel_memory_op(std::move(context), problem, inputs, options);
  return prepare_cudnn_memory_op(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
