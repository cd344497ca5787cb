#include "harness/gpu_datasheet.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "harness/data_paths.hpp"

namespace lb {

namespace {

using nlohmann::json;

std::string normalized(const std::string& name) {
  const auto first = name.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out = name.substr(first, name.find_last_not_of(" \t") + 1 - first);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

DevicePeaks read_row(const json& row, const std::string& where,
                     const std::function<void(const std::string&, const std::string&)>& fail) {
  const auto field = [&](const char* key) -> const json& {
    if (!row.contains(key)) fail(where + "." + key, "missing (required)");
    return row.at(key);
  };
  const auto text = [&](const char* key) {
    const json& v = field(key);
    if (!v.is_string() || v.get<std::string>().empty())
      fail(where + "." + key, "must be a non-empty string");
    return v.get<std::string>();
  };
  const auto positive_number = [&](const json& v, const std::string& path) {
    if (!v.is_number() || v.get<double>() <= 0) fail(path, "must be a positive number");
    return v.get<double>();
  };

  if (!row.is_object()) fail(where, "must be an object");
  DevicePeaks p;
  p.device = text("device");
  const json& names = field("names");
  if (!names.is_array() || names.empty())
    fail(where + ".names", "must be a non-empty array of strings");
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string() || normalized(names[i].get<std::string>()).empty())
      fail(where + ".names[" + std::to_string(i) + "]", "must be a non-empty string");
    p.names.push_back(names[i].get<std::string>());
  }
  const std::string cc = text("compute_capability");
  const auto dot = cc.find('.');
  try {
    size_t used_major = 0, used_minor = 0;
    p.cc_major = std::stoi(cc.substr(0, dot), &used_major);
    p.cc_minor = std::stoi(cc.substr(dot + 1), &used_minor);
    if (dot == std::string::npos || used_major != dot || used_minor != cc.size() - dot - 1)
      throw std::invalid_argument(cc);
  } catch (const std::exception&) {
    fail(where + ".compute_capability", "must read MAJOR.MINOR, e.g. \"9.0\"");
  }
  const json& sms = field("sms");
  if (!sms.is_number_integer() || sms.get<std::int64_t>() < 1)
    fail(where + ".sms", "must be a positive integer");
  p.sms = sms.get<int>();
  p.memory_gbps = positive_number(field("memory_gbps"), where + ".memory_gbps");
  const json& tflops = field("tflops");
  if (!tflops.is_object())
    fail(where + ".tflops", "must be an object of precision: TFLOP/s or null");
  for (const auto& [key, value] : tflops.items()) {
    const auto precision = parse_precision(key);
    if (!precision) fail(where + ".tflops." + key, "unknown precision");
    if (!value.is_null()) p.tflops[*precision] = positive_number(value, where + ".tflops." + key);
  }
  p.source = "datasheet: " + text("source");
  return p;
}

}  // namespace

std::vector<DevicePeaks> load_gpu_peaks(const std::filesystem::path& file) {
  const std::string name = file.string();
  const auto fail = [&](const std::string& path, const std::string& message) {
    throw PeaksFileError(name + ": " + (path.empty() ? "" : path + ": ") + message);
  };
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("", "cannot be opened for reading");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    fail("", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array())
    fail("gpus", "missing (required): an array of GPU rows");
  std::vector<DevicePeaks> table;
  for (size_t i = 0; i < doc["gpus"].size(); ++i)
    table.push_back(read_row(doc["gpus"][i], "gpus[" + std::to_string(i) + "]", fail));
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
