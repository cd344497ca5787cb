// --timing graph's pure logic (kernels/cuda/logic/graph_timing.hpp): how many launches a graph
// holds and what a point records of its timing. The launch times are test data.
#include <gtest/gtest.h>

#include "kernels/cuda/logic/graph_timing.hpp"

namespace lb::cuda::logic {
namespace {

// Cold caches: each launch needs its own L2 flush outside the timed interval, so one per graph.
TEST(CudaGraphTiming, ColdCachesHoldOneLaunchAGraph) {
  EXPECT_EQ(launches_per_graph(CacheMode::cold, 1e-6), 1);
  EXPECT_EQ(launches_per_graph(CacheMode::cold, 1.0), 1);
}

// Warm caches: enough launches for the graph to last min_graph_s (1 ms), within [1, 1000].
TEST(CudaGraphTiming, WarmCachesFillTheGraphToItsMinimumTimeWithinTheCap) {
  EXPECT_DOUBLE_EQ(min_graph_s, 1e-3);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 10e-6), 100);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 0.3e-3), 4);  // ceil(3.33)
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 1e-3), 1);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 5e-3), 1);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 1e-9), max_graph_launches);
  // No warm-up time to go by (none measured, or a nonsense one): a single launch.
  EXPECT_EQ(launches_per_graph(CacheMode::warm, 0), 1);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, -1), 1);
  EXPECT_EQ(launches_per_graph(CacheMode::warm, std::nan("")), 1);
}

TEST(CudaGraphTiming, EachPointRecordsItsTimingAndAGraphsLaunches) {
  using Notes = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(timing_notes(GpuTiming::events, 1), (Notes{{"timing", "events"}}));
  EXPECT_EQ(timing_notes(GpuTiming::graph, 100),
            (Notes{{"timing", "graph"}, {"graph_launches", "100"}}));
}

}  // namespace
}  // namespace lb::cuda::logic
