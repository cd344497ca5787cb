#pragma once
// The cuDNN graph-API descriptors of one convolution pass. They are host objects: cuDNN builds
// and checks them (dimensions, strides, types, padding) at cudnnBackendFinalize without a GPU,
// which lets tests/unit/cuda_descriptors_test.cpp check every shipped layer on any machine.
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "harness/api/backend.hpp"
#include "harness/api/problem.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/device_rules.hpp"

namespace lb::cuda {

// An owned cuDNN backend descriptor.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type);
  ~Descriptor();
  Descriptor(Descriptor&& o) noexcept : desc_(o.desc_) { o.desc_ = nullptr; }
  Descriptor& operator=(Descriptor&& o) noexcept;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return desc_; }
  // Throws LibraryError naming `label` (the attribute) and the caller's file:line.
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
           const void* values, const char* label, const char* file, int line);
  void finalize();

 private:
  cudnnBackendDescriptor_t desc_ = nullptr;
};

// Names the attribute in the error message of a failing set.
#define LB_CUDNN_SET(desc, attr, type, count, values) \
  (desc).set(attr, type, count, values, #attr, __FILE__, __LINE__)

cudnnDataType_t cudnn_data_type(logic::ElementType type);

// True for every status of cuDNN's "not supported" category, e.g. NOT_SUPPORTED_SHAPE.
inline bool cudnn_not_supported(cudnnStatus_t status) {
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
}

// The finalized descriptors of one convolution pass. Declaration order is construction order;
// destruction runs backwards, so the operation goes before the convolution and tensors it holds.
struct ConvDescriptors {
  logic::ConvGraphSpec spec;  // what the descriptors say: dims, strides, uids, padding
  Descriptor x, w, y;         // the forward roles; a backward pass reads y as dy, writes x or w
  Descriptor conv;            // CONVOLUTION: padding, strides, dilation, FP32 compute
  Descriptor op;              // OPERATION_CONVOLUTION_{FORWARD,BACKWARD_DATA,BACKWARD_FILTER}
};

// Builds and finalizes them for a convolution problem (its pass and precision) in `layout`.
// Throws LibraryError when cuDNN rejects one, naming the attribute or the finalize call.
ConvDescriptors conv_descriptors(const Problem& problem, Layout layout);
// The same from a graph spec, for `pass`, with tensors of element type `type`.
ConvDescriptors conv_descriptors(const logic::ConvGraphSpec& spec, Pass pass,
                                 logic::ElementType type);

// The operation graph holding `op`, finalized. `handle` may be null: cuDNN 9.19 finalizes a graph
// without one (its CUDNN_ATTR_OPERATIONGRAPH_HANDLE is deprecated there), which is how the graph
// is checked without a GPU. Throws Unsupported when cuDNN cannot build the graph.
Descriptor conv_graph(const Descriptor& op, cudnnHandle_t handle);

}  // namespace lb::cuda
