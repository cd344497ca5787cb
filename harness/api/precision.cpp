#include "harness/api/precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lb {

std::string_view name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    case Precision::fp8:
      return "fp8";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (Precision p : all_precisions)
    if (name(p) == text) return p;
  return std::nullopt;
}

std::string_view meaning(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "FP32 data and FP32 math, no Tensor Cores, no TF32, no emulation";
    case Precision::tf32:
      return "FP32 data, TF32 Tensor Core math, FP32 accumulation";
    case Precision::fp16:
      return "FP16 data, FP32 accumulation";
    case Precision::bf16:
      return "BF16 data, FP32 accumulation";
    case Precision::fp8:
      return "FP8 E4M3 inputs with scale factors, FP32 accumulation, BF16 output";
  }
  return "?";
}

Precision memory_bound_precision(Precision matrix) {
  switch (matrix) {
    case Precision::tf32:
      return Precision::fp32;
    case Precision::fp8:
      return Precision::bf16;
    case Precision::fp32:
    case Precision::fp16:
    case Precision::bf16:
      break;
  }
  return matrix;
}

int input_bytes(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return 4;
    case Precision::fp16:
    case Precision::bf16:
      return 2;
    case Precision::fp8:
      return 1;
  }
  return 4;
}

int output_bytes(Precision p) { return p == Precision::fp8 ? 2 : input_bytes(p); }

// The tolerances are the project's validation contract (docs/measuring.md, "Validation"):
// relative L2.
double tolerance(Precision p) {
  switch (p) {
    case Precision::fp32:
      return 1e-4;
    case Precision::tf32:
      return 5e-3;
    case Precision::fp16:
    case Precision::bf16:
      return 2e-2;
    case Precision::fp8:
      return 1e-1;
  }
  return 0;
}

namespace {
// Round to nearest even, keeping `mantissa_bits` explicit mantissa bits of an FP32 value.
float round_mantissa(float v, int mantissa_bits) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const int drop = 23 - mantissa_bits;
  const std::uint32_t half = 1u << (drop - 1);
  const std::uint32_t lsb = (bits >> drop) & 1u;
  bits = (bits + half - 1 + lsb) & ~((1u << drop) - 1);
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// FP8 E4M3 (OCP "fn" variant): 3 mantissa bits, exponent bias 7, max 448, subnormals below 2^-6.
float round_e4m3(float v) {
  if (v == 0 || std::isnan(v)) return v;
  const float a = std::fabs(v);
  if (a >= 448.0f) return std::copysign(448.0f, v);
  int exp;
  std::frexp(a, &exp);                  // a = m * 2^exp, m in [0.5, 1)
  const int e = std::max(exp - 1, -6);  // unbiased exponent, clamped to the subnormal range
  const float step = std::ldexp(1.0f, e - 3);
  return std::copysign(std::nearbyint(a / step) * step, v);
}

// FP16 subnormals start below 2^-14 with a fixed step of 2^-24.
float round_fp16(float v) {
  const float a = std::fabs(v);
  if (a < 6.103515625e-05f)
    return std::copysign(std::nearbyint(a / 5.9604645e-08f) * 5.9604645e-08f, v);
  const float r = round_mantissa(v, 10);
  return std::fabs(r) > 65504.0f ? std::copysign(65504.0f, v) : r;
}
}  // namespace

float round_to_storage(Precision p, float v) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return v;
    case Precision::fp16:
      return round_fp16(v);
    case Precision::bf16:
      return round_mantissa(v, 7);
    case Precision::fp8:
      return round_e4m3(v);
  }
  return v;
}

std::string_view name(Pass p) {
  switch (p) {
    case Pass::fwd:
      return "fwd";
    case Pass::fwd_training:
      return "fwd_training";
    case Pass::bwd_data:
      return "bwd_data";
    case Pass::bwd_weights:
      return "bwd_weights";
  }
  return "?";
}

std::optional<Pass> parse_pass(std::string_view text) {
  for (Pass p : all_passes)
    if (name(p) == text) return p;
  return std::nullopt;
}

}  // namespace lb
