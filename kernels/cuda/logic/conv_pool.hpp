#pragma once
// The cuDNN convolution's candidate pool, built as PyTorch's benchmark mode builds it
// (aten/src/ATen/native/cudnn/Conv_v8.cpp): the heuristic's engine configs, then the fallback
// list's, de-duplicated, filtered by the precision's rule (engine_policy.hpp) and the workspace
// limit, and the survivors timed up to conv_pool_limit. Pure logic; docs/measuring.md,
// "Precisions", gives the rule.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/api/precision.hpp"
#include "kernels/cuda/logic/engine_policy.hpp"

namespace lb::cuda::logic {

// How many of the pool's engines --algo autotune builds plans for and times. PyTorch times the
// first torch.backends.cudnn.benchmark_limit of the same list (10 by default, 0 for 10000): 64
// times no fewer, and bounds a point's preparation where a library offers more.
inline constexpr std::size_t conv_pool_limit = 64;

// One engine config a source offered: its tag ("engine 12 k3=1") names it across sources.
struct PoolConfig {
  std::string tag;
  EngineNotes notes;
  std::optional<std::int64_t> workspace;  // where the library reports it before a plan is built
};

struct PoolSlot {
  std::size_t source;  // which source offered it (0: the heuristic, 1: the fallback list)
  std::size_t index;   // its place in that source's list
};

struct ConvPool {
  std::vector<PoolSlot> to_time;                              // in the order to build and time
  std::vector<std::pair<std::string, std::string>> rejected;  // tag, why
  std::size_t offered = 0;                                    // configs of all sources
  std::size_t duplicates = 0;                                 // offered again by a later source
};

// The pool from `sources` in their order: a tag a source already offered is dropped as a
// duplicate, the precision's rule and `workspace_limit` reject what they refuse, and the
// survivors are ordered by preferred_engines; those past `limit` are rejected as untimed.
ConvPool build_conv_pool(Precision precision, const std::vector<std::vector<PoolConfig>>& sources,
                         std::int64_t workspace_limit, std::size_t limit);

// "tag: why; tag: why", the pool's rejections as a point's note records them.
std::string rejection_list(const std::vector<std::pair<std::string, std::string>>& rejected);

}  // namespace lb::cuda::logic
