#pragma once
// A problem's dimensions as a JSON object, the "shape" of list output and of results points:
//   conv: n c h w k r s stride_h stride_w pad_h pad_w dil_h dil_w groups p q
//   gemm: batch m n k trans_a trans_b (the product actually executed, after gemm_for_pass)
#include <nlohmann/json.hpp>

#include "harness/api/problem.hpp"

namespace lb {

nlohmann::json shape_json(const Problem& problem);

}  // namespace lb
