#pragma once
// Status checks for CUDA, cuDNN and cuBLASLt calls. A failing call throws lb::LibraryError
// naming the call, file:line and the library's own message.
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "harness/api/backend.hpp"

namespace lb::cuda {

[[noreturn]] void throw_library_error(const std::string& library, const char* call,
                                      const char* file, int line, const std::string& message);

// "cudaErrorNoDevice: no CUDA-capable device is detected": the error's name and CUDA's text.
inline std::string cuda_error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear the non-sticky error so later calls do not report it again
  throw_library_error("CUDA", call, file, line, cuda_error_text(status));
}

// For a call whose failure only leaves a fact out: true on success; on failure the error is
// cleared, so that the next cudaGetLastError() (the launch check) does not report it as its own.
inline bool succeeded_or_cleared(cudaError_t status) {
  if (status == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

std::string cudnn_message(cudnnStatus_t status);
// A failed cuDNN call, with its status: the backend tells a refused data type from an error by it.
struct CudnnError : LibraryError {
  CudnnError(const std::string& message, cudnnStatus_t status)
      : LibraryError(message), status(status) {}
  cudnnStatus_t status;
};
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file,
                                    int line);
inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, call, file, line);
}

std::string cublas_message(cublasStatus_t status);
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_library_error("cuBLASLt", call, file, line, cublas_message(status));
}

}  // namespace lb::cuda

#define LB_CUDA(call) ::lb::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define LB_CUDNN(call) ::lb::cuda::check_cudnn((call), #call, __FILE__, __LINE__)
#define LB_CUBLAS(call) ::lb::cuda::check_cublas((call), #call, __FILE__, __LINE__)
