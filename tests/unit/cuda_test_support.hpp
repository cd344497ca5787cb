#pragma once
// What the GPU tests share: skipping without a usable GPU, and reading a case's notes.
#include <gtest/gtest.h>

#include <string>

#include "harness/api/backend.hpp"
#include "kernels/cuda/cuda_backend.hpp"

// Skips the calling test with the CUDA runtime's reason when no GPU is usable.
#define REQUIRE_GPU()                                                                             \
  do {                                                                                            \
    std::string why_no_gpu;                                                                       \
    if (lb::cuda::device_count(why_no_gpu) == 0) GTEST_SKIP() << "no usable GPU: " << why_no_gpu; \
  } while (0)

namespace lb::testing {

// The value of a case's note `key`, or "<absent>".
inline std::string note(const Case& c, const std::string& key) {
  for (const auto& [k, v] : c.notes())
    if (k == key) return v;
  return "<absent>";
}

}  // namespace lb::testing
