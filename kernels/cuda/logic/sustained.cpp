#include "kernels/cuda/logic/sustained.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/util/stats.hpp"

namespace lb::cuda::logic {

namespace {

struct WindowMedians {
  bool any = false;  // a reading fell in the window
  double power_w = 0, sm_mhz = 0;
};

// The medians over the readings with time in (from_s, to_s].
WindowMedians medians(const std::vector<NvmlReading>& series, double from_s, double to_s) {
  std::vector<double> power, clock;
  for (const NvmlReading& r : series)
    if (r.time_s > from_s && r.time_s <= to_s) {
      power.push_back(*r.power_mw / 1e3);
      clock.push_back(*r.sm_mhz);
    }
  if (power.empty()) return {};
  return {true, median(power), median(clock)};
}

bool within(double now, double before, double tolerance) {
  return std::abs(now - before) <= tolerance * std::abs(before);
}

// One number in a printf format ("%.4g").
std::string formatted(const char* format, double value) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

int launches_per_reading(double one_launch_s, double interval_s) {
  constexpr int most = 10000;
  if (!(one_launch_s > 0)) return 1;
  const double wanted = std::ceil(interval_s / one_launch_s);
  return wanted >= most ? most : static_cast<int>(wanted);
}

SettleCriterion criterion_within(double point_bound_s) {
  SettleCriterion criterion;
  if (point_bound_s > 0) criterion.max_s = std::min(criterion.max_s, point_bound_s / 2);
  return criterion;
}

SettleVerdict settle(const std::vector<NvmlReading>& series, const SettleCriterion& criterion) {
  SettleVerdict v;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* missing = !series[i].power_mw ? "board power (nvmlDeviceGetPowerUsage)"
                          : !series[i].sm_mhz ? "SM clock (nvmlDeviceGetClockInfo)"
                                              : nullptr;
    if (missing) {
      v.state = SettleState::counter_missing;
      v.why = std::string("no ") + missing + " reading at reading " + std::to_string(i + 1);
      return v;
    }
  }
  if (series.empty()) return v;
  const double start = series.front().time_s, end = series.back().time_s;
  const double w = criterion.window_s;
  // The last window ends at the last reading; the one before needs the run to span two windows.
  const WindowMedians last = end - start >= w ? medians(series, end - w, end) : WindowMedians{};
  const WindowMedians before =
      end - start >= 2 * w ? medians(series, end - 2 * w, end - w) : WindowMedians{};
  if (last.any) v.power_w = last.power_w, v.sm_mhz = last.sm_mhz;
  if (last.any && before.any && within(last.power_w, before.power_w, criterion.tolerance) &&
      within(last.sm_mhz, before.sm_mhz, criterion.tolerance))
    v.state = SettleState::settled;
  else if (end - start >= criterion.max_s)
    v.state = SettleState::bound_reached;
  return v;
}

BurstAndSustained burst_and_sustained(const std::vector<TimedRun>& runs, double gflop,
                                      double window_s) {
  BurstAndSustained out;
  if (runs.empty()) return out;
  const double start = runs.front().end_s - runs.front().seconds;
  const double last_end = runs.back().end_s;
  double burst_s = 0, sustained_s = 0;
  int burst_runs = 0, sustained_runs = 0;
  for (const TimedRun& r : runs) {
    if (r.end_s <= start + window_s) burst_s += r.seconds, ++burst_runs;
    if (r.end_s >= last_end - window_s) sustained_s += r.seconds, ++sustained_runs;
  }
  // GFLOP per millisecond is TFLOP per second.
  if (burst_runs > 0 && burst_s > 0) out.burst_tflops = burst_runs * gflop / (burst_s * 1e3);
  if (sustained_runs > 0 && sustained_s > 0)
    out.sustained_tflops = sustained_runs * gflop / (sustained_s * 1e3);
  return out;
}

std::vector<std::pair<std::string, std::string>> sustained_notes(const SettleVerdict& verdict,
                                                                 const BurstAndSustained& rates,
                                                                 const SettleCriterion& criterion,
                                                                 double seconds) {
  std::string state = verdict.why;
  if (verdict.state == SettleState::settled)
    state = "settled: power and SM clock within " + formatted("%g", 100 * criterion.tolerance) +
            "% over two windows";
  else if (verdict.state != SettleState::counter_missing)
    state = "not settled within " + formatted("%g", criterion.max_s) + " s";
  std::vector<std::pair<std::string, std::string>> notes{
      {"sustained", state}, {"sustained_s", formatted("%.1f", seconds)}};
  const std::pair<const char*, std::optional<double>> figures[] = {
      {"burst_tflops", rates.burst_tflops},
      {"sustained_tflops", rates.sustained_tflops},
      {"sustained_power_w", verdict.power_w},
      {"sustained_sm_mhz", verdict.sm_mhz}};
  for (const auto& [key, value] : figures)
    if (value) notes.emplace_back(key, formatted("%.4g", *value));
  return notes;
}

}  // namespace lb::cuda::logic
