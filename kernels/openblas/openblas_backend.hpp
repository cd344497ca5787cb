#pragma once
// The second CPU backend: OpenBLAS's cblas_sgemm for the GEMM points (linear layers, and batched
// products as one cblas_sgemm per batch entry; OpenBLAS 0.3.21 has no batched SGEMM). FP32
// only; every other precision, and every convolution, is unsupported with the reason. Its
// points sit next to oneDNN's on the same CPU: library against library.
#include <memory>

#include "harness/api/backend.hpp"
#include "harness/api/backend_descriptor.hpp"

namespace lb::openblas {

// OpenBLAS as bench/backend_registry.cpp lists it: the CPU, its --version row and backend.
const BackendDescriptor& descriptor();

// A backend whose GEMMs use `threads` OpenBLAS threads (0 = every logical processor).
std::unique_ptr<Backend> make_backend(int threads);

}  // namespace lb::openblas
