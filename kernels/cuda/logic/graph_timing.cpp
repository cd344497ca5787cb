#include "kernels/cuda/logic/graph_timing.hpp"

#include <cmath>

namespace lb::cuda::logic {

int launches_per_graph(CacheMode cache, double one_launch_s) {
  if (cache == CacheMode::cold || !(one_launch_s > 0)) return 1;
  const double wanted = std::ceil(min_graph_s / one_launch_s);
  return wanted >= max_graph_launches ? max_graph_launches : static_cast<int>(wanted);
}

std::vector<std::pair<std::string, std::string>> timing_notes(GpuTiming timing,
                                                              int graph_launches) {
  if (timing == GpuTiming::events) return {{"timing", "events"}};
  return {{"timing", "graph"}, {"graph_launches", std::to_string(graph_launches)}};
}

}  // namespace lb::cuda::logic
