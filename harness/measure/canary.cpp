#include "harness/measure/canary.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

#include "harness/os/platform.hpp"
#include "harness/util/stats.hpp"

namespace lb {

double CanaryHistory::add(double seconds) {
  seconds_.push_back(seconds);
  const double quiet = reference();
  return quiet > 0 ? seconds / quiet : 1;
}

double CanaryHistory::reference() const {
  if (seconds_.empty()) return 0;
  std::vector<double> sorted = seconds_;
  const std::size_t k = sorted.size() / 10;  // the fastest while under 10 readings
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), sorted.end());
  return sorted[k];
}

namespace {

std::atomic<float> canary_sink{0};

// The compute unit: 12 independent chains of 4-float multiply-adds, held in 12 of a baseline
// x86-64 build's 16 SSE registers (its time: docs/measuring.md). Independent chains keep the
// floating-point pipes busy, as a GEMM's inner loop does, so the unit slows when a sibling
// hyperthread takes the pipes; one dependent chain would not (docs/measuring.md).
__attribute__((noinline)) double compute_unit_s() {
  using v4 = float __attribute__((vector_size(16)));
  constexpr int iterations = 60000;
  const v4 scale = v4{} + 0.9999f, step = v4{} + 0.5f;
  v4 a0 = v4{} + 0.f, a1 = a0 + 1.f, a2 = a0 + 2.f, a3 = a0 + 3.f, a4 = a0 + 4.f, a5 = a0 + 5.f;
  v4 a6 = a0 + 6.f, a7 = a0 + 7.f, a8 = a0 + 8.f, a9 = a0 + 9.f, a10 = a0 + 10.f, a11 = a0 + 11.f;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    a0 = a0 * scale + step, a1 = a1 * scale + step, a2 = a2 * scale + step;
    a3 = a3 * scale + step, a4 = a4 * scale + step, a5 = a5 * scale + step;
    a6 = a6 * scale + step, a7 = a7 * scale + step, a8 = a8 * scale + step;
    a9 = a9 * scale + step, a10 = a10 * scale + step, a11 = a11 * scale + step;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const v4 sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  // Stored where the compiler cannot see it unused, so that the work is not optimised out.
  canary_sink.store(sum[0] + sum[1] + sum[2] + sum[3], std::memory_order_relaxed);
  return seconds;
}

// The memory unit: the buffer's first half, just flushed from every cache level as the second
// is, read into the second, as an out-of-place elementwise layer streams its operands.
double memory_unit_s(std::vector<std::uint64_t>& buffer) {
  platform::evict_from_caches(buffer.data(), buffer.size() * sizeof(std::uint64_t));
  const std::size_t half = buffer.size() / 2;
  const std::uint64_t* from = buffer.data();
  std::uint64_t* to = buffer.data() + half;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < half; ++i) to[i] = from[i] + 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  canary_sink.store(float(to[half - 1] & 0xff), std::memory_order_relaxed);
  return seconds;
}

// 2 MiB read and 2 MiB written a thread: more than a core's L2 on the VMs measured, as a
// batch-1 ResNet-50 activation is (3.2 MB at 256x56x56 FP32).
constexpr std::size_t memory_unit_words = (std::size_t(4) << 20) / sizeof(std::uint64_t);

// One thread's unit times, sized by the caller: a canary thread allocates nothing, since a new
// thread's first allocation takes a glibc heap of its own (64 MiB of address space) unless an
// address-space limit made every thread share one (platform.hpp).
struct UnitTimes {
  std::vector<double> compute, memory;
};

// Every compute unit first, then the memory units, each started on every thread together so
// that they share the memory as a layer's threads do.
void time_units(std::vector<std::uint64_t>& buffer, std::barrier<>& together, UnitTimes& times) {
  for (double& s : times.compute) s = compute_unit_s();
  for (double& s : times.memory) {
    together.arrive_and_wait();
    s = memory_unit_s(buffer);
  }
}

}  // namespace

CanaryReading take_canary_reading(int threads, std::vector<std::vector<std::uint64_t>>& buffers,
                                  int units) {
  threads = std::max(1, threads);
  units = std::max(1, units);
  if (buffers.size() < std::size_t(threads)) buffers.resize(std::size_t(threads));
  for (std::vector<std::uint64_t>& buffer : buffers)
    if (buffer.size() != memory_unit_words) {
      buffer.resize(memory_unit_words);
      for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = i;
    }
  const std::vector<double> per_unit(static_cast<std::size_t>(units));
  std::vector<UnitTimes> per_thread(static_cast<std::size_t>(threads), {per_unit, per_unit});
  std::barrier together(threads);
  // Each thread bound to a processor of its own: a thread just started shares its parent's
  // until the scheduler moves it, and the reading would time the scheduler.
  std::vector<std::thread> running;
  running.reserve(static_cast<std::size_t>(threads));
  try {
    for (int t = 0; t < threads; ++t)
      running.emplace_back([&per_thread, &buffers, &together, t] {
        platform::pin_this_thread(t);
        time_units(buffers[std::size_t(t)], together, per_thread[std::size_t(t)]);
      });
  } catch (...) {
    // A thread that could not start (no memory or address space left) leaves the barrier, so
    // that those started finish; the point then records the failure.
    for (std::size_t t = running.size(); t < std::size_t(threads); ++t) together.arrive_and_drop();
    for (std::thread& t : running) t.join();
    throw;
  }
  for (std::thread& t : running) t.join();
  // A layer's threads share its work: it is as fast as the slowest.
  CanaryReading slowest;
  for (UnitTimes& times : per_thread) {
    slowest.compute_s = std::max(slowest.compute_s, median(std::move(times.compute)));
    slowest.memory_s = std::max(slowest.memory_s, median(std::move(times.memory)));
  }
  return slowest;
}

CanarySlowdown MachineCanary::add(PerThreads& entry, const CanaryReading& reading) {
  const CanarySlowdown s{entry.compute.add(reading.compute_s), entry.memory.add(reading.memory_s)};
  if (s.compute > canary_slow_above) ++entry.slow;
  if (s.memory > canary_slow_above) ++entry.memory_slow;
  entry.slowest = std::max(entry.slowest, s.compute);
  entry.memory_slowest = std::max(entry.memory_slowest, s.memory);
  return s;
}

CanarySlowdown MachineCanary::slowdown(int threads) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [threads](const PerThreads& e) { return e.threads == threads; });
  if (it == entries_.end()) {
    entries_.push_back({});
    it = std::prev(entries_.end());
    it->threads = threads;
    // A first few readings give the references something to stand on.
    for (int i = 0; i < 9; ++i) add(*it, take_canary_reading(threads, it->buffers));
  }
  return add(*it, take_canary_reading(threads, it->buffers));
}

CanarySummary MachineCanary::summary() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  CanarySummary s;
  std::size_t most = 0;
  for (const PerThreads& e : entries_) {
    s.readings += e.compute.readings();
    s.slow_readings += e.slow;
    s.memory_slow_readings += e.memory_slow;
    s.slowest = std::max(s.slowest, e.slowest);
    s.memory_slowest = std::max(s.memory_slowest, e.memory_slowest);
    if (e.compute.readings() > most) {
      most = e.compute.readings();
      s.compute_unit_s = e.compute.reference();
      s.memory_unit_s = e.memory.reference();
    }
  }
  return s;
}

nlohmann::json to_json(const CanarySummary& s) {
  return {{"readings", s.readings},
          {"slow_readings", s.slow_readings},
          {"slow_share", s.readings ? double(s.slow_readings) / double(s.readings) : 0.0},
          {"slowest", s.slowest},
          {"memory_slow_readings", s.memory_slow_readings},
          {"memory_slowest", s.memory_slowest},
          {"slow_above", canary_slow_above},
          {"compute_unit_ms", s.compute_unit_s * 1e3},
          {"memory_unit_ms", s.memory_unit_s * 1e3}};
}

std::string canary_text(const CanarySummary& s) {
  if (s.readings == 0) return "";
  char line[400];
  std::snprintf(line, sizeof line,
                "machine speed: the canary's compute unit read slow (over %.1fx its quiet %.3f "
                "ms) in %zu of %zu readings (%.1f%%), at worst %.2fx, and rounds measured then "
                "count as contended; its memory unit (quiet %.3f ms, recorded, not judged) in "
                "%zu (%.1f%%), at worst %.2fx",
                canary_slow_above, s.compute_unit_s * 1e3, s.slow_readings, s.readings,
                100.0 * double(s.slow_readings) / double(s.readings), s.slowest,
                s.memory_unit_s * 1e3, s.memory_slow_readings,
                100.0 * double(s.memory_slow_readings) / double(s.readings), s.memory_slowest);
  return line;
}

MachineCanary& machine_canary() {
  static MachineCanary canary;
  return canary;
}

}  // namespace lb
