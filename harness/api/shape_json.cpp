#include "harness/api/shape_json.hpp"

namespace lb {

nlohmann::json shape_json(const Problem& problem) {
  if (problem.is_memory()) {
    const auto& s = problem.memory().shape;
    nlohmann::json j = {{"op", name(s.op)}, {"dims", s.dims}};
    if (s.op == MemoryOp::add) j["broadcast"] = s.broadcast;
    if (runs_in_place(problem.memory())) j["in_place"] = true;
    if (s.op == MemoryOp::max_pool || s.op == MemoryOp::avg_pool) {
      j["window"] = s.window, j["stride"] = s.stride, j["pad"] = s.pad;
    }
    return j;
  }
  if (problem.is_conv()) {
    const auto& s = problem.conv().shape;
    return {{"n", s.n},
            {"c", s.c},
            {"h", s.h},
            {"w", s.w},
            {"k", s.k},
            {"r", s.r},
            {"s", s.s},
            {"stride_h", s.stride_h},
            {"stride_w", s.stride_w},
            {"pad_h", s.pad_h},
            {"pad_w", s.pad_w},
            {"dil_h", s.dil_h},
            {"dil_w", s.dil_w},
            {"groups", s.groups},
            {"p", s.p()},
            {"q", s.q()}};
  }
  const auto& g = problem.gemm().shape;
  return {{"batch", g.batch},    {"m", g.m}, {"n", g.n}, {"k", g.k}, {"trans_a", g.trans_a},
          {"trans_b", g.trans_b}};
}

}  // namespace lb
