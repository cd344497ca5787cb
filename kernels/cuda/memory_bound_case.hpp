#pragma once
// The GPU cases of the memory-bound problems. What they share lives here: the inputs uploaded in
// the layout logic::memory_tensor_spec gives them (parameter vectors in FP32), the poisoned
// output read back in canonical layout, and the notes. cudnn_memory_bound_ops.cpp runs batch
// norm, pooling and softmax through cuDNN's legacy API, kernel_memory_bound_ops.cpp the rest
// (logic::memory_route says which).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/gpu_case.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"

namespace lb::cuda {

class MemoryCase : public GpuCase {
 public:
  // The output of the last run; in place, of one run on the first input as it was (the last
  // timed run's is many runs', a + b added again and again).
  HostTensor output() override;
  std::uint64_t workspace_bytes() const override { return 0; }

 protected:
  // Checks the inputs against tensor_dims(problem) (std::invalid_argument), uploads them and
  // makes the poisoned output. The caller has checked support and memory.
  MemoryCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
             const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  std::vector<std::pair<std::string, std::string>> case_notes() const override { return notes_; }
  void add_note(std::string key, std::string value) {
    notes_.emplace_back(std::move(key), std::move(value));
  }

  const MemoryProblem& problem() const { return problem_; }
  Precision precision() const { return precision_; }
  logic::ElementType data_type() const { return logic::input_type(precision_); }
  // Input i as tensor_dims orders them, and the output: what the device holds and how.
  const logic::TensorSpec& input_spec(std::size_t i) const { return input_specs_.at(i); }
  logic::ElementType input_type(std::size_t i) const;
  void* input(std::size_t i) const { return inputs_.at(i).get(); }
  const logic::TensorSpec& output_spec() const { return output_spec_; }
  // In place (runs_in_place), the output is the first input's buffer.
  bool in_place() const { return first_input_.has_value(); }
  void* output_buffer() const { return in_place() ? input(0) : output_.get(); }
  // Fills the output with NaN again after preparing used it (a forward run for the statistics,
  // a first launch that checks the library can run the case): only timed runs write it then.
  // In place there is nothing to fill: the output starts as the input.
  void poison_output();
  // A device buffer of `bytes` charged to this GPU's ledger.
  DeviceBuffer allocate(std::uint64_t bytes) const;

 private:
  MemoryProblem problem_;
  Precision precision_;
  std::vector<logic::TensorSpec> input_specs_;
  logic::TensorSpec output_spec_;
  std::vector<DeviceBuffer> inputs_;
  DeviceBuffer output_;
  // In place: the first input as uploaded, to restore before the output is read.
  std::optional<std::vector<unsigned char>> first_input_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

// Element count of a 4-d spec.
std::int64_t spec_elements(const logic::TensorSpec& spec);

// The case of a memory-bound problem, by logic::memory_route.
std::unique_ptr<Case> prepare_memory_op(std::shared_ptr<DeviceContext> context,
                                        const Problem& problem,
                                        const std::vector<HostTensor>& inputs,
                                        const CudaCaseOptions& options);
// The two routes (cudnn_memory_bound_ops.cpp, kernel_memory_bound_ops.cpp).
std::unique_ptr<Case> prepare_cudnn_memory_op(std::shared_ptr<DeviceContext> context,
                                              const Problem& problem,
                                              const std::vector<HostTensor>& inputs,
                                              const CudaCaseOptions& options);
std::unique_ptr<Case> prepare_kernel_memory_op(std::shared_ptr<DeviceContext> context,
                                               const Problem& problem,
                                               const std::vector<HostTensor>& inputs,
                                               const CudaCaseOptions& options);

}  // namespace lb::cuda
