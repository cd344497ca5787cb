#pragma once
// Times work that runs on several threads at once, for the CPU's FMA-peak and memory-bandwidth
// probes: every thread is created and waiting before the clock starts, and the time ends when
// the last one has finished, so thread creation is never timed.
#include <functional>

namespace lb {

// Runs work(t) for t = 0 .. threads-1, each on a thread of its own (at least one); returns the
// wall seconds from the common start to the end of the slowest.
double time_on_threads(int threads, const std::function<void(int)>& work);

}  // namespace lb
