#include "kernels/cuda/cuda_check.hpp"

#include "harness/api/backend.hpp"

namespace lb::cuda {

void throw_library_error(const std::string& library, const char* call, const char* file, int line,
                         const std::string& message) {
  throw LibraryError(library + " call " + call + " failed at " + file + ":" + std::to_string(line) +
                     ": " + message);
}

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  throw CudnnError("cuDNN call " + std::string(call) + " failed at " + file + ":" +
                       std::to_string(line) + ": " + cudnn_message(status),
                   status);
}

std::string cudnn_message(cudnnStatus_t status) {
  std::string message = cudnnGetErrorString(status);
  // cuDNN 9 keeps a more precise description of the last failure per thread.
  char detail[1024] = {};
  cudnnGetLastErrorString(detail, sizeof detail);
  if (detail[0] != '\0') message += std::string(" (") + detail + ")";
  return message;
}

std::string cublas_message(cublasStatus_t status) {
  return std::string(cublasLtGetStatusName(status)) + ": " + cublasLtGetStatusString(status);
}

}  // namespace lb::cuda
