#include "kernels/cuda/logic/telemetry.hpp"

#include <algorithm>
#include <cstdio>

#include "harness/util/stats.hpp"

namespace lb::cuda::logic {

namespace {

struct NamedReason {
  unsigned long long bit;
  const char* name;
};
constexpr NamedReason named_reasons[] = {
    {reason_gpu_idle, "gpu_idle"},
    {reason_applications_clocks_setting, "applications_clocks_setting"},
    {reason_sw_power_cap, "sw_power_cap"},
    {reason_hw_slowdown, "hw_slowdown"},
    {reason_sync_boost, "sync_boost"},
    {reason_sw_thermal_slowdown, "sw_thermal_slowdown"},
    {reason_hw_thermal_slowdown, "hw_thermal_slowdown"},
    {reason_hw_power_brake_slowdown, "hw_power_brake_slowdown"},
    {reason_display_clock_setting, "display_clock_setting"},
};

constexpr unsigned long long cap_reasons = reason_sw_power_cap | reason_hw_slowdown |
                                           reason_sw_thermal_slowdown | reason_hw_thermal_slowdown |
                                           reason_hw_power_brake_slowdown;

// Minimum and median of a field over every reading; both empty without one.
template <class Field>
void min_and_median(const std::vector<NvmlReading>& readings, Field field,
                    std::optional<double>& min, std::optional<double>& med) {
  std::vector<double> values;
  for (const NvmlReading& r : readings)
    if (const auto v = field(r)) values.push_back(static_cast<double>(*v));
  if (values.empty()) return;
  min = *std::min_element(values.begin(), values.end());
  med = median(values);
}

std::string formatted(const char* format, double value) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The indices at which the energy counter stepped; empty `why_not` when every reading had it
// and it never went back.
std::vector<std::size_t> counter_steps(const std::vector<NvmlReading>& load, std::string& why_not) {
  std::vector<std::size_t> steps;
  for (std::size_t i = 0; i < load.size(); ++i) {
    if (!load[i].energy_mj) {
      why_not = "no energy counter reading at load reading " + std::to_string(i + 1);
      return {};
    }
    if (i == 0 || *load[i].energy_mj == *load[i - 1].energy_mj) continue;
    if (*load[i].energy_mj < *load[i - 1].energy_mj) {
      why_not = "the energy counter went backwards (wrapped or reset) at load reading " +
                std::to_string(i + 1);
      return {};
    }
    steps.push_back(i);
  }
  return steps;
}

// Whether the counter's steps give the load's power: enough of them, far enough apart.
bool steps_suffice(const std::vector<NvmlReading>& load, const std::vector<std::size_t>& steps) {
  return steps.size() >= static_cast<std::size_t>(load_counter_steps) &&
         load[steps.back()].time_s - load[steps.front()].time_s >= load_min_span_s;
}

// The median power over the window's second half, where NVML's 1 s average covers the load.
std::optional<double> late_power_w(const std::vector<NvmlReading>& load) {
  const double half = (load.front().time_s + load.back().time_s) / 2;
  std::vector<double> watts;
  for (const NvmlReading& r : load)
    if (r.time_s >= half && r.power_mw) watts.push_back(*r.power_mw / 1e3);
  if (watts.empty()) return std::nullopt;
  return median(watts);
}

}  // namespace

std::vector<std::string> reason_names(unsigned long long mask) {
  std::vector<std::string> names;
  for (const auto& r : named_reasons)
    if (mask & r.bit) names.emplace_back(r.name), mask &= ~r.bit;
  for (unsigned bit = 0; bit < 64; ++bit)
    if (mask & (1ull << bit)) {
      char text[32];
      std::snprintf(text, sizeof text, "unknown_0x%llx", 1ull << bit);
      names.emplace_back(text);
    }
  return names;
}

bool cap_throttled(unsigned long long mask) { return (mask & cap_reasons) != 0; }

bool reading_due(double now_s, double last_reading_end_s, double last_reading_cost_s) {
  return now_s - last_reading_end_s >=
         last_reading_cost_s * (1 - reading_time_share) / reading_time_share;
}

bool span_throttled(const std::vector<NvmlReading>& readings, const SampleSpan& span) {
  std::size_t first = 0;
  while (first + 1 < readings.size() && readings[first + 1].time_s <= span.start_s) ++first;
  for (std::size_t i = first; i < readings.size(); ++i) {
    if (readings[i].event_reasons && cap_throttled(*readings[i].event_reasons)) return true;
    if (readings[i].time_s >= span.end_s) break;
  }
  return false;
}

bool load_window_done(const std::vector<NvmlReading>& load) {
  if (load.empty()) return false;
  if (load.back().time_s - load.front().time_s >= load_window_max_s) return true;
  std::string why_not;
  return steps_suffice(load, counter_steps(load, why_not));
}

LoadPower load_power(const std::vector<NvmlReading>& load, std::optional<double> idle_w) {
  LoadPower p;
  if (load.size() < 2) {
    p.why_not = "no load window";
    return p;
  }
  std::string why_counter;
  const std::vector<std::size_t> steps = counter_steps(load, why_counter);
  p.counter_steps = static_cast<int>(steps.size());
  const double window_s = load.back().time_s - load.front().time_s;
  p.readings_watts = late_power_w(load);
  if (steps_suffice(load, steps)) {
    const NvmlReading &from = load[steps.front()], &to = load[steps.back()];
    p.seconds = to.time_s - from.time_s;
    p.watts = static_cast<double>(*to.energy_mj - *from.energy_mj) / 1e3 / p.seconds;
    p.method = "energy_counter";
  } else {
    if (why_counter.empty())
      why_counter = "the energy counter stepped " + std::to_string(steps.size()) + " times in " +
                    formatted("%.3g", window_s) + " s of back-to-back runs; " +
                    std::to_string(load_counter_steps) + " steps spanning at least " +
                    formatted("%.3g", load_min_span_s) + " s needed";
    p.why_not = why_counter;
    if ((p.watts = p.readings_watts)) p.seconds = window_s, p.method = "power_readings";
  }
  if (p.watts && idle_w && *p.watts <= *idle_w) {
    p.why_not = "implausible: " + formatted("%.4g", *p.watts) + " W (" + p.method +
                ") while the operation ran back to back is not above the " +
                formatted("%.4g", *idle_w) + " W the board drew before any work";
    p.watts.reset();
    p.method.clear();
  }
  return p;
}

std::vector<std::pair<std::string, std::string>> load_notes(const LoadPower& load) {
  if (!load.watts && load.why_not.empty()) return {};
  std::vector<std::pair<std::string, std::string>> notes;
  notes.emplace_back("load_window",
                     load.watts ? load.method + " " + formatted("%.4g", *load.watts) + " W over " +
                                      formatted("%.3g", load.seconds) + " s, " +
                                      std::to_string(load.counter_steps) + " counter steps"
                                : "no figure: " + load.why_not);
  if (load.readings_watts)
    notes.emplace_back("load_power_readings_w", formatted("%.4g", *load.readings_watts));
  return notes;
}

DeviceTelemetry summarize_telemetry(const std::vector<NvmlReading>& readings,
                                    const std::vector<SampleSpan>& samples, const LoadPower& load,
                                    std::map<std::string, std::string> absent, bool device_lost) {
  DeviceTelemetry t;
  t.source = "nvml";
  t.samples = static_cast<std::int64_t>(samples.size());
  t.device_lost = device_lost;
  min_and_median(
      readings, [](const NvmlReading& r) { return r.sm_mhz; }, t.sm_clock_min_mhz,
      t.sm_clock_median_mhz);
  min_and_median(
      readings, [](const NvmlReading& r) { return r.memory_mhz; }, t.memory_clock_min_mhz,
      t.memory_clock_median_mhz);
  std::optional<double> power_min_mw;
  min_and_median(
      readings, [](const NvmlReading& r) { return r.power_mw; }, power_min_mw, t.power_median_w);
  if (t.power_median_w) *t.power_median_w /= 1e3;
  if (load.watts) {
    t.energy_j = *load.watts * load.seconds;
    t.window_s = load.seconds;
    t.energy_method = load.method;
  }
  if (!load.why_not.empty()) absent.emplace(load.watts ? "energy_counter" : "energy", load.why_not);
  unsigned long long seen = 0;
  bool reasons_read = false;
  for (const NvmlReading& r : readings) {
    reasons_read |= r.event_reasons.has_value();
    seen |= r.event_reasons.value_or(0);
  }
  for (const SampleSpan& span : samples)
    if (span_throttled(readings, span)) ++t.throttled_samples;
  t.clock_event_reasons = reason_names(seen);
  const std::pair<const char*, bool> fields[] = {
      {"sm_clock", t.sm_clock_median_mhz.has_value()},
      {"memory_clock", t.memory_clock_median_mhz.has_value()},
      {"power", t.power_median_w.has_value()},
      {"energy", t.energy_j.has_value()},
      {"clock_event_reasons", reasons_read}};
  for (const auto& [field, present] : fields)
    if (!present) absent.emplace(field, device_lost ? "the GPU was lost" : "no reading");
  t.absent = std::move(absent);
  return t;
}

}  // namespace lb::cuda::logic
