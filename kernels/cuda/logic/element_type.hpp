#pragma once
// The element types the GPU backend stores. Apart from device_rules.hpp so that CUDA sources,
// compiled as C++17 without the harness's headers, can name them too.
namespace lb::cuda::logic {

enum class ElementType { f32, f16, bf16, e4m3 };

}  // namespace lb::cuda::logic
