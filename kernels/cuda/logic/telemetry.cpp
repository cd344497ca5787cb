#include "kernels/cuda/logic/telemetry.hpp"

#include <algorithm>
#include <cstdio>

#include "harness/stats.hpp"

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
void min_and_median(const std::vector<SampleReadings>& samples, Field field,
                    std::optional<double>& min, std::optional<double>& med) {
  std::vector<double> values;
  for (const auto& s : samples)
    for (const NvmlReading* r : {&s.before, &s.after})
      if (const auto v = field(*r)) values.push_back(static_cast<double>(*v));
  if (values.empty()) return;
  min = *std::min_element(values.begin(), values.end());
  med = median(values);
}

std::optional<double> counter_joules(const std::vector<SampleReadings>& samples,
                                     std::string& why_not) {
  double mj = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto &before = samples[i].before.energy_mj, &after = samples[i].after.energy_mj;
    if (!before || !after) {
      why_not = "no energy counter reading around sample " + std::to_string(i + 1);
      return std::nullopt;
    }
    if (*after < *before) {
      why_not =
          "the energy counter went backwards (wrapped or reset) in sample " + std::to_string(i + 1);
      return std::nullopt;
    }
    // NVML refreshes the counter less often than it is read: a window in which it stood still
    // while the board drew power is shorter than its updates, and so are the deltas around it.
    const bool drawing =
        samples[i].before.power_mw.value_or(0) > 0 || samples[i].after.power_mw.value_or(0) > 0;
    if (*after == *before && drawing) {
      char window_ms[32];
      std::snprintf(window_ms, sizeof window_ms, "%.3g",
                    (samples[i].after.time_s - samples[i].before.time_s) * 1e3);
      why_not = "the energy counter did not advance over sample " + std::to_string(i + 1) + " (" +
                window_ms + " ms) while the board drew power: it updates less often than that";
      return std::nullopt;
    }
    mj += static_cast<double>(*after - *before);
  }
  return mj / 1e3;
}

std::optional<double> integrated_joules(const std::vector<SampleReadings>& samples) {
  double joules = 0;
  for (const auto& s : samples) {
    if (!s.before.power_mw || !s.after.power_mw || s.after.time_s < s.before.time_s)
      return std::nullopt;
    joules +=
        (*s.before.power_mw + *s.after.power_mw) / 2.0 / 1e3 * (s.after.time_s - s.before.time_s);
  }
  return joules;
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

bool sample_throttled(const SampleReadings& sample) {
  return (sample.before.event_reasons && cap_throttled(*sample.before.event_reasons)) ||
         (sample.after.event_reasons && cap_throttled(*sample.after.event_reasons));
}

EnergyEstimate energy_over(const std::vector<SampleReadings>& samples) {
  EnergyEstimate e;
  if (samples.empty()) {
    e.why_not_counter = "no samples";
    return e;
  }
  if ((e.joules = counter_joules(samples, e.why_not_counter))) {
    e.method = "energy_counter";
  } else if ((e.joules = integrated_joules(samples))) {
    e.method = "power_integrated";
  }
  return e;
}

DeviceTelemetry summarize_telemetry(const std::vector<SampleReadings>& samples,
                                    std::map<std::string, std::string> absent, bool device_lost) {
  DeviceTelemetry t;
  t.source = "nvml";
  t.samples = static_cast<std::int64_t>(samples.size());
  t.device_lost = device_lost;
  min_and_median(
      samples, [](const NvmlReading& r) { return r.sm_mhz; }, t.sm_clock_min_mhz,
      t.sm_clock_median_mhz);
  min_and_median(
      samples, [](const NvmlReading& r) { return r.memory_mhz; }, t.memory_clock_min_mhz,
      t.memory_clock_median_mhz);
  std::optional<double> power_min_mw;
  min_and_median(
      samples, [](const NvmlReading& r) { return r.power_mw; }, power_min_mw, t.power_median_w);
  if (t.power_median_w) *t.power_median_w /= 1e3;
  const EnergyEstimate energy = energy_over(samples);
  t.energy_j = energy.joules;
  t.energy_method = energy.method;
  if (!energy.why_not_counter.empty()) absent.emplace("energy_counter", energy.why_not_counter);
  unsigned long long seen = 0;
  bool reasons_read = false;
  for (const auto& s : samples) {
    t.window_s += std::max(0.0, s.after.time_s - s.before.time_s);
    reasons_read |= s.before.event_reasons || s.after.event_reasons;
    seen |= s.before.event_reasons.value_or(0) | s.after.event_reasons.value_or(0);
    if (sample_throttled(s)) ++t.throttled_samples;
  }
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
