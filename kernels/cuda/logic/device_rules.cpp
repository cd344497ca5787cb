#include "kernels/cuda/logic/device_rules.hpp"

#include "harness/util/stats.hpp"

#include <algorithm>

namespace lb::cuda::logic {

std::optional<std::string> precision_unsupported(Precision p, bool is_conv, int major, int minor) {
  const int cc = major * 10 + minor;
  const std::string device = " (this GPU has compute capability " + std::to_string(major) + "." +
                             std::to_string(minor) + ")";
  switch (p) {
    case Precision::fp32:
      return std::nullopt;
    case Precision::fp16:
      if (cc < 70) return "FP16 Tensor Cores need compute capability 7.0 or newer" + device;
      return std::nullopt;
    case Precision::tf32:
    case Precision::bf16:
      if (cc < 80)
        return std::string(p == Precision::tf32 ? "TF32" : "BF16") +
               " Tensor Cores need compute capability 8.0 or newer" + device;
      return std::nullopt;
    case Precision::fp8:
      if (is_conv)
        return std::string("layerbench runs FP8 only through cuBLASLt (GEMMs), not cuDNN");
      if (cc < 89) return "FP8 Tensor Cores need compute capability 8.9 or newer" + device;
      return std::nullopt;
  }
  return "unknown precision";
}

std::size_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::f32:
      return 4;
    case ElementType::f16:
    case ElementType::bf16:
      return 2;
    case ElementType::e4m3:
      return 1;
  }
  return 4;
}

ElementType input_type(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return ElementType::f32;
    case Precision::fp16:
      return ElementType::f16;
    case Precision::bf16:
      return ElementType::bf16;
    case Precision::fp8:
      return ElementType::e4m3;
  }
  return ElementType::f32;
}

ElementType output_type(Precision p) {
  return p == Precision::fp8 ? ElementType::bf16 : input_type(p);
}

std::uint64_t flush_bytes(std::uint64_t l2_bytes) { return 2 * l2_bytes; }

std::uint64_t available_bytes(std::uint64_t free_bytes, std::uint64_t used_by_us,
                              std::uint64_t limit_bytes) {
  if (limit_bytes == 0) return free_bytes;
  const std::uint64_t left = limit_bytes > used_by_us ? limit_bytes - used_by_us : 0;
  return std::min(free_bytes, left);
}

bool throttled(unsigned clock_mhz, unsigned default_mhz) {
  return default_mhz > 0 && 4ull * clock_mhz < 3ull * default_mhz;
}

std::vector<std::pair<std::string, std::string>> clock_notes(const std::string& nvml_error,
                                                             std::optional<unsigned> before,
                                                             std::optional<unsigned> after,
                                                             std::optional<unsigned> default_mhz) {
  if (!nvml_error.empty()) return {{"clock", "NVML not available: " + nvml_error}};
  std::vector<std::pair<std::string, std::string>> notes;
  auto put = [&](const char* key, std::optional<unsigned> v) {
    notes.emplace_back(key, v ? std::to_string(*v) : std::string("unknown"));
  };
  put("sm_clock_mhz_before", before);
  put("sm_clock_mhz_after", after);
  put("sm_clock_default_mhz", default_mhz);
  // Judged on the reading after the timed runs: the GPU has been busy for the whole measurement
  // then, while the first reading may catch it still ramping up from idle.
  if (default_mhz && after)
    notes.emplace_back("throttled", throttled(*after, *default_mhz) ? "true" : "false");
  return notes;
}

double median(std::vector<double> values) {
  return values.empty() ? failed_time : lb::median(std::move(values));
}

std::optional<std::size_t> fastest(const std::vector<double>& seconds) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < seconds.size(); ++i)
    if (seconds[i] < failed_time && (!best || seconds[i] < seconds[*best])) best = i;
  return best;
}

bool refusal_is_unsupported(CudnnRefusal refusal, Precision precision) {
  switch (refusal) {
    case CudnnRefusal::not_supported:
      return true;
    case CudnnRefusal::bad_param:
      return input_type(precision) != ElementType::f32;
    case CudnnRefusal::other:
      return false;
  }
  return false;
}

}  // namespace lb::cuda::logic
