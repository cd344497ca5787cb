#pragma once
// The GPU backend: one per GPU, running convolutions through cuDNN and GEMMs through cuBLASLt.
#include <memory>
#include <string>

#include "harness/api/backend.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda {

// The number of CUDA devices; 0 with `error` set to the runtime's reason (e.g. no driver).
int device_count(std::string& error);

// The backend for one GPU, preparing every case with `options`. Throws LibraryError when the
// device cannot be opened.
std::unique_ptr<Backend> make_backend(int device_index, const CudaOptions& options = {});

}  // namespace lb::cuda
