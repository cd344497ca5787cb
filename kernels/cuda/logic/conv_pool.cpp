#include "kernels/cuda/logic/conv_pool.hpp"

#include <set>

namespace lb::cuda::logic {

ConvPool build_conv_pool(Precision precision, const std::vector<std::vector<PoolConfig>>& sources,
                         std::int64_t workspace_limit, std::size_t limit) {
  ConvPool pool;
  std::set<std::string> seen;
  std::vector<PoolSlot> accepted;
  std::vector<EngineNotes> accepted_notes;
  std::vector<std::string> accepted_tags;
  for (std::size_t s = 0; s < sources.size(); ++s)
    for (std::size_t i = 0; i < sources[s].size(); ++i) {
      const PoolConfig& config = sources[s][i];
      ++pool.offered;
      if (!seen.insert(config.tag).second) {
        ++pool.duplicates;
        continue;
      }
      if (const auto why = engine_rejection(precision, config.notes)) {
        pool.rejected.emplace_back(config.tag, *why);
        continue;
      }
      if (config.workspace && *config.workspace > workspace_limit) {
        pool.rejected.emplace_back(
            config.tag, "needs " + std::to_string(*config.workspace) + " bytes of workspace");
        continue;
      }
      accepted.push_back({s, i});
      accepted_notes.push_back(config.notes);
      accepted_tags.push_back(config.tag);
    }
  const std::vector<std::size_t> order = preferred_engines(precision, accepted_notes);
  const std::set<std::size_t> ordered(order.begin(), order.end());
  for (std::size_t k = 0; k < accepted.size(); ++k)
    if (!ordered.count(k))
      pool.rejected.emplace_back(accepted_tags[k], "no Tensor Cores, while engines with them are");
  for (const std::size_t k : order) {
    if (pool.to_time.size() < limit)
      pool.to_time.push_back(accepted[k]);
    else
      pool.rejected.emplace_back(accepted_tags[k],
                                 "past the pool's limit of " + std::to_string(limit));
  }
  return pool;
}

std::string rejection_list(const std::vector<std::pair<std::string, std::string>>& rejected) {
  std::string list;
  for (const auto& [tag, why] : rejected) list += (list.empty() ? "" : "; ") + tag + ": " + why;
  return list;
}

}  // namespace lb::cuda::logic
