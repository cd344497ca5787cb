#pragma once
// Rules the GPU backend applies that need no GPU to state: which precisions a compute capability
// runs, the element types each precision stores, the memory a point needs and may use, and what
// the SM clock readings say. Pure logic, unit-tested everywhere.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/api/problem.hpp"
#include "kernels/cuda/logic/element_type.hpp"

namespace lb::cuda::logic {

// Tensor Core precisions by compute capability (bench/facts/tensor_cores.json, with its source):
// FP16 from 7.0, TF32 and BF16 from 8.0, FP8 (cuBLASLt only) from 8.9. layerbench runs FP8
// convolutions nowhere. Returns why the device cannot run the problem, or nothing.
std::optional<std::string> precision_unsupported(Precision precision, bool is_conv, int cc_major,
                                                 int cc_minor);

std::size_t element_bytes(ElementType type);
// Device storage types of a precision: its inputs (fp8: E4M3) and its output (fp8: BF16).
ElementType input_type(Precision precision);
ElementType output_type(Precision precision);

// Bytes to write between timed runs to evict the operands from L2: twice its size, because
// one pass of an L2-sized buffer does not evict every line under a non-LRU replacement policy.
std::uint64_t flush_bytes(std::uint64_t l2_bytes);

// What a point may allocate: the device's free memory, and with a limit (--memory-limit) no more
// than the limit minus what this backend already holds.
std::uint64_t available_bytes(std::uint64_t free_bytes, std::uint64_t used_by_us,
                              std::uint64_t limit_bytes);

// The clock facts recorded with a point, as "key=value" notes. Readings are MHz; a missing one
// is an empty optional. `nvml_error` non-empty means NVML could not be used at all.
std::vector<std::pair<std::string, std::string>> clock_notes(const std::string& nvml_error,
                                                             std::optional<unsigned> before_mhz,
                                                             std::optional<unsigned> after_mhz,
                                                             std::optional<unsigned> default_mhz);

// A point is throttled when the SM clock read after its timed runs is below 75% of the default.
// 75% is layerbench's chosen threshold, not a vendor figure: a drop that large is flagged, while
// ordinary boost and power management above it is not.
bool throttled(unsigned clock_mhz, unsigned default_mhz);

// Choosing among timed candidates: a candidate that failed to run has time failed_time.
inline constexpr double failed_time = std::numeric_limits<double>::infinity();
double median(std::vector<double> values);
// Index of the fastest candidate that ran, or nothing when none did.
std::optional<std::size_t> fastest(const std::vector<double>& seconds);

// The category of a cuDNN status (CUDNN_STATUS_CATEGORY) that refused a call.
enum class CudnnRefusal { not_supported, bad_param, other };
// Whether a cuDNN refusal while a point is prepared means that cuDNN cannot run the point's data
// type (the point is recorded unsupported, with cuDNN's reason), not a failure: NOT_SUPPORTED
// always, and BAD_PARAM for data that are not FP32, which is how the legacy API answers a type
// one of its calls lacks (cudnnAddTensor, in-place cudnnActivationForward). FP32 data have no
// such excuse: there BAD_PARAM is layerbench's error.
bool refusal_is_unsupported(CudnnRefusal refusal, Precision precision);

}  // namespace lb::cuda::logic
