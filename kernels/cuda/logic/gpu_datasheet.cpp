#include "kernels/cuda/logic/gpu_datasheet.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <system_error>
#include <tuple>

#include <nlohmann/json.hpp>

#include "harness/util/data_paths.hpp"
#include "harness/util/json_fields.hpp"
#include "harness/util/json_limits.hpp"

namespace lb::cuda::logic {

namespace {

std::string normalized(const std::string& name) {
  const auto first = name.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out = name.substr(first, name.find_last_not_of(" \t") + 1 - first);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The whole text as a non-negative int: digits only, no sign, no space.
std::optional<int> whole_number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0)
    return std::nullopt;
  return value;
}

// A fact as the CUDA backend writes it, a string; empty when absent or not one.
std::string fact(const nlohmann::json& facts, const char* key) {
  const auto it = facts.find(key);
  return it != facts.end() && it->is_string() ? it->get<std::string>() : "";
}

DevicePeaks read_row(const JsonField& row) {
  row.require_object();
  DevicePeaks p;
  p.device = row["device"].text();
  const JsonField names = row["names"];
  for (std::size_t i = 0, n = names.array("a non-empty array of strings", 1); i < n; ++i) {
    const JsonField name = names[i];
    if (normalized(name.text()).empty()) name.expected("a non-empty string");
    p.names.push_back(name.text());
  }
  const JsonField cc_field = row["compute_capability"];
  const auto cc = parse_compute_capability(cc_field.text());
  if (!cc) cc_field.expected("MAJOR.MINOR, e.g. \"9.0\"");
  std::tie(p.cc_major, p.cc_minor) = *cc;
  p.sms = row["sms"].integer<int>(1);
  p.memory_gbps = row["memory_gbps"].positive_number();
  const JsonField tflops = row["tflops"];
  tflops.require_object("an object of precision: TFLOP/s or null");
  for (const auto& item : tflops.json().items()) {
    const JsonField value = tflops[item.key()];
    const auto precision = parse_precision(item.key());
    if (!precision) value.fail("unknown precision");
    if (!value.json().is_null()) p.tflops[*precision] = value.positive_number();
  }
  p.source = "datasheet: " + row["source"].text();
  return p;
}

// The datasheet is one small table: the file, gpus, a row, its names or tflops.
constexpr JsonLimits datasheet_limits{1 << 20, 4};

}  // namespace

std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text) {
  const auto dot = text.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const auto major = whole_number(std::string_view(text).substr(0, dot));
  const auto minor = whole_number(std::string_view(text).substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{*major, *minor};
}

std::vector<DevicePeaks> load_gpu_peaks(const std::filesystem::path& file) {
  const std::string name = file.string();
  const nlohmann::json doc = read_bounded_json(file, datasheet_limits);
  const JsonField rows = JsonField(doc, name)["gpus"];
  std::vector<DevicePeaks> table;
  for (std::size_t i = 0, n = rows.array("an array of GPU rows"); i < n; ++i)
    table.push_back(read_row(rows[i]));
  return table;
}

std::optional<DevicePeaks> lookup_gpu_peaks(const std::vector<DevicePeaks>& table,
                                            const std::string& gpu_name, int cc_major, int cc_minor,
                                            int sms) {
  const std::string wanted = normalized(gpu_name);
  for (const auto& row : table)
    for (const auto& row_name : row.names)
      if (normalized(row_name) == wanted) {
        if (row.cc_major != cc_major || row.cc_minor != cc_minor || row.sms != sms)
          return std::nullopt;
        return row;
      }
  return std::nullopt;
}

std::optional<DevicePeaks> lookup_gpu_peaks(const std::string& gpu_name, int cc_major, int cc_minor,
                                            int sms) {
  static const std::vector<DevicePeaks> table =
      load_gpu_peaks(data_dir() / "facts" / "gpu_peaks.json");
  return lookup_gpu_peaks(table, gpu_name, cc_major, cc_minor, sms);
}

DeviceDescription describe_gpu(const nlohmann::json& facts) {
  DeviceDescription d;
  d.name = fact(facts, "gpu_name");
  const auto cc = parse_compute_capability(fact(facts, "compute_capability"));
  const auto sms = whole_number(fact(facts, "sm_count"));
  if (!cc || !sms) return d;
  const auto peaks = lookup_gpu_peaks(d.name, cc->first, cc->second, *sms);
  if (!peaks) return d;
  d.peak_tflops = peaks->tflops;
  d.memory_gbps = peaks->memory_gbps;
  d.source = peaks->source;
  return d;
}

}  // namespace lb::cuda::logic
