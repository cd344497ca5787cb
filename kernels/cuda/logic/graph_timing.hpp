#pragma once
// --timing graph: a GPU point's samples each launch a CUDA graph of the operation, captured once
// after the warm-up, instead of the operation's own launches, so that the launch overhead between
// the operation's kernels (and between repeated launches) leaves the timed interval. The L2 flush
// stays outside it: a cold-cache graph holds one launch, flushed before like an event-timed one.
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda::logic {

// cudaEventElapsedTime's resolution, "around 0.5 microseconds" (CUDA Runtime API reference).
inline constexpr double event_resolution_s = 0.5e-6;
// A warm-cache graph runs for at least 2000 resolutions (1 ms), so the events' resolution is
// at most 0.05% of its time; at most 1000 launches bound its capture. Both are choices.
inline constexpr double min_graph_s = 2000 * event_resolution_s;
inline constexpr int max_graph_launches = 1000;

// How many launches of the operation one graph holds, given one launch's time (the warm-up's
// last run): one with cold caches, since every launch needs its own flush outside the timed
// interval; with warm caches enough to last min_graph_s, from 1 to max_graph_launches.
int launches_per_graph(CacheMode cache, double one_launch_s);

// A GPU point's notes on how it was timed: "timing" ("events" or "graph") and, in graph mode,
// "graph_launches" (the launches each sample's graph holds; its time is divided by them).
std::vector<std::pair<std::string, std::string>> timing_notes(GpuTiming timing, int graph_launches);

}  // namespace lb::cuda::logic
