#pragma once
// Precisions and passes: names, sizes and validation tolerances. Pure data, no library calls.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lb {

// What a precision means is fixed here once; backends must honour it exactly:
//   fp32: FP32 data and FP32 math, no Tensor Cores (no TF32, no reduced-precision emulation)
//   tf32: FP32 data, TF32 Tensor Core math
//   fp16, bf16: 16-bit data, FP32 accumulation
//   fp8: E4M3 inputs with scale factors, FP32 accumulation, BF16 output
enum class Precision { fp32, tf32, fp16, bf16, fp8 };

inline constexpr Precision all_precisions[] = {Precision::fp32, Precision::tf32, Precision::fp16,
                                               Precision::bf16, Precision::fp8};

std::string_view name(Precision p);
std::optional<Precision> parse_precision(std::string_view text);
// One sentence saying what the precision means, recorded with every point.
std::string_view meaning(Precision p);

// The precision frameworks run the memory-bound layers in (normalisation, activations, adds,
// pooling, softmax) when the convolutions and GEMMs run in `matrix`: TF32 is a matrix-product
// mode, so those layers stay FP32; FP8 recipes keep the layers around the GEMMs in BF16.
// Model sums and the run plan take it from here alone.
Precision memory_bound_precision(Precision matrix);

// Bytes per element of the inputs and of the output as stored in memory.
int input_bytes(Precision p);
int output_bytes(Precision p);

// Relative-L2 tolerance a result must meet to be reported as ok.
double tolerance(Precision p);

// Round a value to what the precision stores (fp32/tf32 keep FP32 data; tf32 rounding happens
// inside the Tensor Cores and is covered by the tolerance). Used so that the reference computes
// on exactly the inputs the device sees.
float round_to_storage(Precision p, float value);

// The passes of a layer. For GEMMs, bwd_data is the gradient of the first operand (A) and
// bwd_weights that of the second (B), whether B holds weights (linear) or activations (attention).
// fwd_training is batch norm's forward in training, which normalises with the batch's own
// statistics (its fwd is inference's, with the running ones); no other op has it.
// all_passes is in the order a training step runs them, forward passes first.
enum class Pass { fwd, fwd_training, bwd_data, bwd_weights };
inline constexpr Pass all_passes[] = {Pass::fwd, Pass::fwd_training, Pass::bwd_data,
                                      Pass::bwd_weights};
// The passes of a convolution or GEMM.
inline constexpr Pass layer_passes[] = {Pass::fwd, Pass::bwd_data, Pass::bwd_weights};
std::string_view name(Pass p);
std::optional<Pass> parse_pass(std::string_view text);

}  // namespace lb
