#pragma once
// The cuDNN legacy descriptors of a memory-bound problem (batch norm, ReLU, add, pooling,
// softmax). They are host objects: building them needs neither a handle nor a device, so
// tests/unit/cuda_memory_bound_descriptors_test.cpp checks every shipped op's on any machine.
#include <cudnn.h>

#include <array>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/logic/memory_bound_ops.hpp"

namespace lb::cuda {

// Tensors from logic::memory_tensor_spec (the layout applies to batch norm and pooling only),
// parameter vectors FP32; the pooling (max, or average with padding excluded), ReLU activation
// and FP32-compute add descriptors where the op has one. NaN propagates, as in the frameworks.
// Throws LibraryError when cuDNN refuses one.
class LegacyMemoryDescriptors {
 public:
  LegacyMemoryDescriptors(const Problem& problem, Layout layout);
  ~LegacyMemoryDescriptors();
  LegacyMemoryDescriptors(const LegacyMemoryDescriptors&) = delete;
  LegacyMemoryDescriptors& operator=(const LegacyMemoryDescriptors&) = delete;

  cudnnTensorDescriptor_t input(std::size_t i) const { return inputs_.at(i); }  // tensor_dims order
  cudnnTensorDescriptor_t output() const { return output_; }
  cudnnPoolingDescriptor_t pooling() const { return pooling_; }           // null but for pooling
  cudnnActivationDescriptor_t activation() const { return activation_; }  // null but for ReLU
  cudnnOpTensorDescriptor_t add() const { return add_; }                  // null but for add
  // N, C, H, W of the pooling's output as cuDNN computes them from these descriptors.
  std::array<std::int64_t, 4> pooled_dims() const;

 private:
  void release() noexcept;

  bool forward_;
  std::vector<cudnnTensorDescriptor_t> inputs_;
  cudnnTensorDescriptor_t output_ = nullptr;
  cudnnPoolingDescriptor_t pooling_ = nullptr;
  cudnnActivationDescriptor_t activation_ = nullptr;
  cudnnOpTensorDescriptor_t add_ = nullptr;
};

}  // namespace lb::cuda
