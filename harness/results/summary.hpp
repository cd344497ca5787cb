#pragma once
// The short table `layerbench run` prints at the end: per model, pass set, device and
// precision, the batch with the most images/s (layer sums), and the speed-ups of that best
// against the CPU's FP32 best and against the same GPU's FP32 best, and how noisy its points
// were (in-run noise and spread between rounds). Pure text formatting.
#include <string>
#include <vector>

#include "harness/results/aggregate.hpp"

namespace lb {

// Fixed-width columns: model, pass, device, precision, batch, images/s, vs CPU FP32,
// vs own FP32, and the sum's uncertainty in percent (ModelResult::uncertainty), "(unstable)"
// beside the rate when it is at least unstable_sum_uncertainty. A speed-up is "-" unless
// both results are ok ("vs own FP32" only on a device other than the CPU: the same device's). A
// configuration without any ok batch shows its first result's status ("unsupported", "oom", ...)
// instead of images/s. Ends with the layer-sum caveat.
std::string summary_table(const std::vector<ModelResult>& results);

}  // namespace lb
