#include "harness/results/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "harness/api/device_id.hpp"

namespace lb {

namespace {

// Three significant digits at least, no exponent: 1234, 123, 12.3, 1.23, 0.123.
std::string format_rate(double v) {
  const int decimals = v > 0 ? std::max(0, 2 - static_cast<int>(std::floor(std::log10(v)))) : 0;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string format_speedup(double ratio) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2fx", ratio);
  return buffer;
}

std::string format_percent(double fraction) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", fraction * 100);
  return buffer;
}

bool is_accelerator(const std::string& device) {
  const auto id = parse_device_id(device);
  return id && !id->is_cpu();
}

// Index of a value in first-appearance order, adding it when new.
size_t order_of(std::vector<std::string>& seen, const std::string& value) {
  const auto it = std::find(seen.begin(), seen.end(), value);
  if (it != seen.end()) return static_cast<size_t>(it - seen.begin());
  seen.push_back(value);
  return seen.size() - 1;
}

// One configuration: its best ok result, or else its first result (for the status).
struct Config {
  const ModelResult* best = nullptr;
  const ModelResult* first = nullptr;
};

using Configs = std::map<std::tuple<size_t, int, size_t, size_t>, Config>;

// Rows by model, pass set, device, precision; each in first-appearance order.
Configs configurations(const std::vector<ModelResult>& results) {
  std::vector<std::string> models, devices, precisions;
  Configs configs;
  for (const auto& r : results) {
    Config& c = configs[{order_of(models, r.model), static_cast<int>(r.pass),
                         order_of(devices, keyed_device(r.device, r.backend)),
                         order_of(precisions, r.precision)}];
    if (!c.first) c.first = &r;
    if (r.status == "ok" && (!c.best || *r.images_per_s > *c.best->images_per_s)) c.best = &r;
  }
  return configs;
}

// The table's rows, headers first; an images/J column only when some best row has energy.
std::vector<std::vector<std::string>> summary_rows(const Configs& configs) {
  const auto best_rate = [&](const ModelResult& r,
                             const std::string& device) -> std::optional<double> {
    for (const auto& [key, c] : configs)
      if (c.best && c.best->model == r.model && c.best->pass == r.pass &&
          keyed_device(c.best->device, c.best->backend) == device && c.best->precision == "fp32")
        return *c.best->images_per_s;
    return std::nullopt;
  };
  const bool energy = std::any_of(configs.begin(), configs.end(), [](const auto& entry) {
    return entry.second.best && entry.second.best->images_per_joule;
  });
  std::vector<std::vector<std::string>> rows = {{"model", "pass", "device", "precision", "batch",
                                                 "images/s", "vs CPU FP32", "vs own FP32",
                                                 "uncertainty"}};
  if (energy) rows[0].push_back("images/J");
  for (const auto& [key, c] : configs) {
    const ModelResult& r = c.best ? *c.best : *c.first;
    const std::string where = keyed_device(r.device, r.backend);
    std::vector<std::string> row = {r.model, std::string(name(r.pass)), where, r.precision};
    if (!c.best) {
      row.insert(row.end(), {"-", r.status, "-", "-", "-"});
      if (energy) row.push_back("-");
    } else {
      row.push_back(std::to_string(r.batch));
      row.push_back(format_rate(*r.images_per_s) + (r.contended_points ? " (contended)" : "") +
                    (r.unstable ? " (unstable)" : ""));
      const auto cpu = best_rate(r, "cpu");
      row.push_back(cpu ? format_speedup(*r.images_per_s / *cpu) : "-");
      const auto gpu = is_accelerator(r.device) ? best_rate(r, where) : std::nullopt;
      row.push_back(gpu ? format_speedup(*r.images_per_s / *gpu) : "-");
      row.push_back(r.uncertainty ? format_percent(*r.uncertainty) : "-");
      if (energy) row.push_back(r.images_per_joule ? format_rate(*r.images_per_joule) : "-");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The rows as aligned columns: text left, numbers from the batch on right.
std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  constexpr size_t first_numeric_column = 4;  // batch, images/s and speed-ups align right
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      line += (i ? "  " : "") + (i >= first_numeric_column ? pad + row[i] : row[i] + pad);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string summary_table(const std::vector<ModelResult>& results) {
  if (results.empty()) return "No model results.\n";
  const Configs configs = configurations(results);
  std::string out =
      "Best images/s per model, pass, device and precision over the batches run; speed-ups "
      "compare these bests.\n" +
      aligned(summary_rows(configs));
  for (const auto& [key, c] : configs)
    if (c.best && c.best->contended_points > 0) {
      out +=
          "(contended): summed over points whose samples lost CPU to other processes; the "
          "rate may be slower than this machine can do.\n";
      break;
    }
  if (std::any_of(configs.begin(), configs.end(), [](const auto& entry) {
        return entry.second.best && entry.second.best->unstable;
      }))
    out += "(unstable): the sum's uncertainty is " + format_percent(unstable_sum_uncertainty) +
           " or more; it may not come again on a rerun.\n";
  out +=
      "uncertainty: the summed points' uncertainties (in-run noise or spread between rounds, "
      "the larger) weighted by their share of the time, added as if all erred the same way.\n";
  // The rows whose memory-bound layers come from another precision's points say so.
  std::map<std::string, std::string> substituted;
  for (const auto& r : results)
    for (const auto& [kind, precision] : r.layer_precisions)
      if (precision != r.precision) substituted[r.precision] = precision;
  for (const auto& [matrix, memory] : substituted)
    out += matrix + ": memory-bound layers in " + memory + ", as frameworks run them.\n";
  return out + model_sum_label + "\n";
}

}  // namespace lb
