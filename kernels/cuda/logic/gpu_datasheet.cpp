#include "harness/machine/gpu_datasheet.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/util/data_paths.hpp"
#include "harness/util/json_fields.hpp"
#include "harness/util/json_limits.hpp"

namespace lb {

namespace {

std::string normalized(const std::string& name) {
  const auto first = name.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out = name.substr(first, name.find_last_not_of(" \t") + 1 - first);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
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
  const std::string cc = cc_field.text();
  const auto dot = cc.find('.');
  try {
    size_t used_major = 0, used_minor = 0;
    p.cc_major = std::stoi(cc.substr(0, dot), &used_major);
    p.cc_minor = std::stoi(cc.substr(dot + 1), &used_minor);
    if (dot == std::string::npos || used_major != dot || used_minor != cc.size() - dot - 1)
      throw std::invalid_argument(cc);
  } catch (const std::exception&) {
    cc_field.expected("MAJOR.MINOR, e.g. \"9.0\"");
  }
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

}  // namespace lb
