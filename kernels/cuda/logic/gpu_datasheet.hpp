#pragma once
// GPU datasheet peaks (bench/facts/gpu_peaks.json, copied from the project's reference facts).
// They are data, not measurements: a result's fraction of peak says "datasheet" as its source.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/api/backend_descriptor.hpp"
#include "harness/api/precision.hpp"
#include "harness/util/input_error.hpp"

namespace lb::cuda::logic {

struct DevicePeaks {
  std::string device;              // the table's row, e.g. "H200 SXM"
  std::vector<std::string> names;  // as cudaGetDeviceProperties reports them
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  double memory_gbps = 0;
  std::map<Precision, double> tflops;  // only the precisions the GPU has math for
  std::string source;                  // "datasheet: H200 datasheet"
};

// Reads the datasheet table; a malformed file throws InputError naming the file and field,
// e.g. ".../gpu_peaks.json: gpus[2].sms: must be a positive integer, is 0".
std::vector<DevicePeaks> load_gpu_peaks(const std::filesystem::path& file);

// The row for a GPU: its name must be one of the row's names (case and surrounding spaces
// ignored), and compute capability and SM count must agree. A SKU that shares a name but not
// the SM count gets no peak rather than a wrong one.
std::optional<DevicePeaks> lookup_gpu_peaks(const std::vector<DevicePeaks>& table,
                                            const std::string& gpu_name, int cc_major, int cc_minor,
                                            int sms);
// The same in the shipped table, data_dir()/facts/gpu_peaks.json (read once).
std::optional<DevicePeaks> lookup_gpu_peaks(const std::string& gpu_name, int cc_major, int cc_minor,
                                            int sms);

// "9.0" as (9, 0); empty when the text is not MAJOR.MINOR.
std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text);

// A GPU's device record from the facts the CUDA backend recorded for it (gpu_name,
// compute_capability, sm_count): its name, and the shipped table's peaks where it has the GPU's
// row. Facts without a readable compute capability or SM count give the name alone.
DeviceDescription describe_gpu(const nlohmann::json& facts);

}  // namespace lb::cuda::logic
