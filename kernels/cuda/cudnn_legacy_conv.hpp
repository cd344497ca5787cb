#pragma once
// Convolutions through cuDNN's legacy API (cudnnConvolutionForward, cudnnConvolutionBackwardData,
// cudnnConvolutionBackwardFilter): deprecated in cuDNN 9 but what TensorFlow up to 2.x and older
// PyTorch call, so `--cudnn-api legacy` measures what those frameworks get.
#include <cudnn.h>

#include <array>
#include <memory>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda {

// The tensor, filter and convolution descriptors of one convolution. Building them needs neither
// a handle nor a device (they are host objects), so they are tested without a GPU. Dimensions and
// strides come from logic::conv_graph_spec; the filter's memory format follows the layout.
// Throws Unsupported for fp8 and LibraryError when cuDNN refuses a descriptor.
class LegacyConvDescriptors {
 public:
  LegacyConvDescriptors(const ConvShape& shape, Precision precision, Layout layout);
  ~LegacyConvDescriptors();
  LegacyConvDescriptors(const LegacyConvDescriptors&) = delete;
  LegacyConvDescriptors& operator=(const LegacyConvDescriptors&) = delete;

  const logic::ConvGraphSpec& spec() const { return spec_; }
  cudnnTensorDescriptor_t x() const { return x_; }
  cudnnFilterDescriptor_t w() const { return w_; }
  cudnnTensorDescriptor_t y() const { return y_; }
  cudnnConvolutionDescriptor_t conv() const { return conv_; }

  // N, K, P, Q of the forward output as cuDNN computes them from these descriptors.
  std::array<std::int64_t, 4> forward_output_dims() const;

 private:
  void release() noexcept;

  logic::ConvGraphSpec spec_;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
};

// Asks cudnnGetConvolution*Algorithm_v7 for the algorithms, best first; keeps those whose status
// is a success, whose math type the precision allows and whose workspace fits the limit; with
// AlgoChoice::autotune times up to 8 of them and keeps the fastest. Throws Unsupported for fp8 and
// when no algorithm can run the problem. The caller has checked support and memory.
std::unique_ptr<Case> prepare_cudnn_legacy_conv(std::shared_ptr<DeviceContext> context,
                                                const Problem& problem,
                                                const std::vector<HostTensor>& inputs,
                                                const CudaCaseOptions& options);

}  // namespace lb::cuda
