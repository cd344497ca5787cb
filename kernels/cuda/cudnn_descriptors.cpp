#include "kernels/cuda/cudnn_descriptors.hpp"

#include <stdexcept>
#include <utility>

#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {

Descriptor::Descriptor(cudnnBackendDescriptorType_t type) {
  LB_CUDNN(cudnnBackendCreateDescriptor(type, &desc_));
}

Descriptor::~Descriptor() {
  if (desc_) cudnnBackendDestroyDescriptor(desc_);
}

Descriptor& Descriptor::operator=(Descriptor&& o) noexcept {
  std::swap(desc_, o.desc_);
  return *this;
}

void Descriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                     std::int64_t count, const void* values, const char* label, const char* file,
                     int line) {
  const std::string call = std::string("cudnnBackendSetAttribute(") + label + ")";
  check_cudnn(cudnnBackendSetAttribute(desc_, name, type, count, values), call.c_str(), file, line);
}

void Descriptor::finalize() { LB_CUDNN(cudnnBackendFinalize(desc_)); }

cudnnDataType_t cudnn_data_type(logic::ElementType t) {
  switch (t) {
    case logic::ElementType::f32:
      return CUDNN_DATA_FLOAT;
    case logic::ElementType::f16:
      return CUDNN_DATA_HALF;
    case logic::ElementType::bf16:
      return CUDNN_DATA_BFLOAT16;
    case logic::ElementType::e4m3:
      return CUDNN_DATA_FP8_E4M3;
  }
  throw std::invalid_argument("unknown element type");
}

namespace {

Descriptor tensor_descriptor(const logic::TensorSpec& t, cudnnDataType_t type) {
  Descriptor d(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const std::int64_t alignment = 16;  // cudaMalloc gives 256-byte aligned buffers
  LB_CUDNN_SET(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  LB_CUDNN_SET(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, t.dims.data());
  LB_CUDNN_SET(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, t.strides.data());
  LB_CUDNN_SET(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &t.uid);
  LB_CUDNN_SET(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  d.finalize();
  return d;
}

Descriptor convolution_descriptor(const logic::ConvGraphSpec& spec) {
  Descriptor d(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;  // FP32 accumulation for every precision
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const std::int64_t spatial_dims = 2;
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial_dims);
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2,
               spec.pre_padding.data());
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2,
               spec.post_padding.data());
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, spec.dilation.data());
  LB_CUDNN_SET(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, spec.stride.data());
  d.finalize();
  return d;
}

Descriptor operation_descriptor(Pass pass, const Descriptor& x, const Descriptor& w,
                                const Descriptor& y, const Descriptor& conv) {
  // alpha and beta have the scaling type of the FP32 compute type: float (double only for a
  // double compute type).
  const float alpha = 1.0f, beta = 0.0f;
  const cudnnBackendDescriptor_t xd = x.get(), wd = w.get(), yd = y.get(), cd = conv.get();
  const auto B = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  switch (pass) {
    case Pass::fwd_training:  // batch norm's pass; tensor_dims refuses it for a convolution
      break;
    case Pass::fwd: {
      Descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, B, 1, &xd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, B, 1, &wd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, B, 1, &yd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, B, 1, &cd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
      op.finalize();
      return op;
    }
    case Pass::bwd_data: {
      Descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, B, 1, &xd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, B, 1, &wd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, B, 1, &yd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, B, 1, &cd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1,
                   &alpha);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
      op.finalize();
      return op;
    }
    case Pass::bwd_weights: {
      Descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, B, 1, &xd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, B, 1, &wd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, B, 1, &yd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, B, 1, &cd);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_TYPE_FLOAT, 1,
                   &alpha);
      LB_CUDNN_SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_FLOAT, 1,
                   &beta);
      op.finalize();
      return op;
    }
  }
  throw std::invalid_argument("unknown pass");
}

}  // namespace

ConvDescriptors conv_descriptors(const logic::ConvGraphSpec& spec, Pass pass,
                                 logic::ElementType type) {
  const cudnnDataType_t data_type = cudnn_data_type(type);
  Descriptor x = tensor_descriptor(spec.x, data_type);
  Descriptor w = tensor_descriptor(spec.w, data_type);
  Descriptor y = tensor_descriptor(spec.y, data_type);
  Descriptor conv = convolution_descriptor(spec);
  Descriptor op = operation_descriptor(pass, x, w, y, conv);
  return ConvDescriptors{spec,         std::move(x),    std::move(w),
                         std::move(y), std::move(conv), std::move(op)};
}

ConvDescriptors conv_descriptors(const Problem& problem, Layout layout) {
  return conv_descriptors(logic::conv_graph_spec(problem.conv().shape, layout), problem.conv().pass,
                          logic::input_type(problem.precision));
}

Descriptor conv_graph(const Descriptor& op, cudnnHandle_t handle) {
  Descriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  const cudnnBackendDescriptor_t op_raw = op.get();
  LB_CUDNN_SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op_raw);
  if (handle) LB_CUDNN_SET(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  const cudnnStatus_t status = cudnnBackendFinalize(graph.get());
  if (cudnn_not_supported(status))
    throw Unsupported("cuDNN cannot build this convolution graph: " + cudnn_message(status));
  LB_CUDNN(status);
  return graph;
}

}  // namespace lb::cuda
