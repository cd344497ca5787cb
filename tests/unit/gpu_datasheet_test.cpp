#include "kernels/cuda/logic/gpu_datasheet.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <utility>

#include "harness/util/data_paths.hpp"

namespace lb::cuda::logic {
namespace {

// Expected values are the rows of the reference facts' "NVIDIA GPU peaks" table, which
// bench/facts/gpu_peaks.json copies (its "source" names it).
TEST(GpuPeaks, KnownGpusMatchTheirTableRows) {
  const auto h200 = lookup_gpu_peaks("NVIDIA H200", 9, 0, 132);
  ASSERT_TRUE(h200.has_value());
  EXPECT_EQ(h200->device, "H200 SXM");
  EXPECT_DOUBLE_EQ(h200->memory_gbps, 4800);
  EXPECT_DOUBLE_EQ(h200->tflops.at(Precision::fp32), 67);
  EXPECT_DOUBLE_EQ(h200->tflops.at(Precision::tf32), 494.7);
  EXPECT_DOUBLE_EQ(h200->tflops.at(Precision::fp16), 989.4);
  EXPECT_DOUBLE_EQ(h200->tflops.at(Precision::bf16), 989.4);
  EXPECT_DOUBLE_EQ(h200->tflops.at(Precision::fp8), 1978.9);
  EXPECT_EQ(h200->source, "datasheet: H200 datasheet");

  const auto h100 = lookup_gpu_peaks("NVIDIA H100 80GB HBM3", 9, 0, 132);
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->device, "H100 SXM");
  EXPECT_DOUBLE_EQ(h100->memory_gbps, 3350);
  EXPECT_DOUBLE_EQ(h100->tflops.at(Precision::fp16), 989.4);

  const auto rtx4090 = lookup_gpu_peaks("NVIDIA GeForce RTX 4090", 8, 9, 128);
  ASSERT_TRUE(rtx4090.has_value());
  EXPECT_DOUBLE_EQ(rtx4090->tflops.at(Precision::fp32), 82.6);
  EXPECT_DOUBLE_EQ(rtx4090->tflops.at(Precision::bf16), 165.2);
  EXPECT_DOUBLE_EQ(rtx4090->tflops.at(Precision::fp8), 330.3);
  EXPECT_DOUBLE_EQ(rtx4090->memory_gbps, 1008);

  const auto a100 = lookup_gpu_peaks("NVIDIA A100-SXM4-80GB", 8, 0, 108);
  ASSERT_TRUE(a100.has_value());
  EXPECT_DOUBLE_EQ(a100->tflops.at(Precision::fp32), 19.5);
  EXPECT_DOUBLE_EQ(a100->tflops.at(Precision::tf32), 156);
  EXPECT_DOUBLE_EQ(a100->tflops.at(Precision::fp16), 312);
  EXPECT_EQ(a100->tflops.count(Precision::fp8), 0u);  // no FP8 before compute capability 8.9
  EXPECT_DOUBLE_EQ(a100->memory_gbps, 2039);

  // Case and surrounding spaces do not matter; V100 has FP16 Tensor Cores only.
  const auto v100 = lookup_gpu_peaks("  tesla v100-sxm2-16gb ", 7, 0, 80);
  ASSERT_TRUE(v100.has_value());
  EXPECT_DOUBLE_EQ(v100->tflops.at(Precision::fp16), 125);
  EXPECT_EQ(v100->tflops.count(Precision::bf16), 0u);
  EXPECT_EQ(v100->tflops.count(Precision::tf32), 0u);
}

TEST(GpuPeaks, UnknownOrMismatchedGpusGetNoPeak) {
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA B200", 10, 0, 148).has_value());
  // Other SKUs of a listed chip have other clocks or memory: no row, not a near one.
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA A100-SXM4-40GB", 8, 0, 108).has_value());
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA H100 PCIe", 9, 0, 114).has_value());
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA A10G", 8, 6, 80).has_value());
  // A listed name with another SM count or compute capability is not that row.
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA H200", 9, 0, 120).has_value());
  EXPECT_FALSE(lookup_gpu_peaks("NVIDIA H200", 8, 0, 132).has_value());
}

// Every row of the shipped file is well formed and its names are unique.
TEST(GpuPeaks, ShippedTableIsConsistent) {
  const auto table = load_gpu_peaks(data_dir() / "facts" / "gpu_peaks.json");
  EXPECT_EQ(table.size(), 10u);
  std::set<std::string> names;
  for (const auto& row : table) {
    EXPECT_TRUE(row.tflops.count(Precision::fp32)) << row.device;
    EXPECT_EQ(row.tflops.count(Precision::fp8) > 0, row.cc_major * 10 + row.cc_minor >= 89)
        << row.device;
    for (const auto& n : row.names) EXPECT_TRUE(names.insert(n).second) << n;
  }
}

std::string load_error(const std::string& text) {
  const auto file = std::filesystem::temp_directory_path() / "layerbench_peaks_test.json";
  std::ofstream(file) << text;
  try {
    load_gpu_peaks(file);
  } catch (const InputError& e) {
    std::string what = e.what();
    return what.substr(what.find(": ") + 2);  // without the temporary path
  }
  return "(no error)";
}

TEST(GpuPeaks, BadFilesNameTheField) {
  const std::string row =
      R"({"device": "X", "names": ["X"], "compute_capability": "9.0", "sms": 1, "memory_gbps": 1,
          "tflops": {"fp32": 1}, "source": "s"})";
  EXPECT_EQ(load_error(R"({"gpus": [)" + row + "]}"), "(no error)");
  EXPECT_EQ(load_error(R"({"rows": []})"), "gpus: missing");
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string r = row;
    r.replace(r.find(from), from.size(), to);
    return load_error(R"({"gpus": [)" + row + "," + r + "]}");
  };
  EXPECT_EQ(bad(R"("sms": 1)", R"("sms": 0)"), "gpus[1].sms: must be a positive integer, is 0");
  EXPECT_EQ(bad(R"("9.0")", R"("nine")"),
            "gpus[1].compute_capability: must be MAJOR.MINOR, e.g. \"9.0\", is \"nine\"");
  EXPECT_EQ(bad(R"("9.0")", R"("9")"),
            "gpus[1].compute_capability: must be MAJOR.MINOR, e.g. \"9.0\", is \"9\"");
  EXPECT_EQ(bad(R"("fp32": 1)", R"("fp64": 1)"), "gpus[1].tflops.fp64: unknown precision");
  EXPECT_EQ(bad(R"("fp32": 1)", R"("fp32": "fast")"),
            "gpus[1].tflops.fp32: must be a positive number, is \"fast\"");
  EXPECT_EQ(bad(R"("source": "s")", R"("origin": "s")"), "gpus[1].source: missing");
}

TEST(GpuPeaks, ComputeCapabilityIsMajorDotMinor) {
  EXPECT_EQ(parse_compute_capability("9.0"), std::pair(9, 0));
  EXPECT_EQ(parse_compute_capability("12.10"), std::pair(12, 10));
  for (const char* bad :
       {"", "9", "9.", ".0", "9.0.1", " 9.0", "+9.0", "-9.0", "9.x", "99999999999.0"})
    EXPECT_FALSE(parse_compute_capability(bad).has_value()) << bad;
}

// The device record of a GPU as the CUDA descriptor makes it from its backend's facts.
TEST(GpuPeaks, DescribedGpuHasItsRowsPeaksOrItsNameAlone) {
  const nlohmann::json h200 = {
      {"gpu_name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_count", "132"}};
  const DeviceDescription d = describe_gpu(h200);
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.peak_tflops, lookup_gpu_peaks("NVIDIA H200", 9, 0, 132)->tflops);
  EXPECT_EQ(d.memory_gbps, 4800);
  EXPECT_EQ(d.source, lookup_gpu_peaks("NVIDIA H200", 9, 0, 132)->source);
  EXPECT_EQ(d.source.rfind("datasheet: ", 0), 0u) << d.source;

  for (auto [key, value] : {std::pair{"sm_count", "120"},
                            {"sm_count", "13x"},
                            {"sm_count", "-1"},
                            {"compute_capability", "nine"}}) {
    nlohmann::json other = h200;
    other[key] = value;
    const DeviceDescription named_only = describe_gpu(other);
    EXPECT_EQ(named_only.name, "NVIDIA H200") << key << "=" << value;
    EXPECT_TRUE(named_only.peak_tflops.empty()) << key << "=" << value;
    EXPECT_FALSE(named_only.memory_gbps.has_value()) << key << "=" << value;
  }
  EXPECT_EQ(describe_gpu(nlohmann::json::object()).name, "");
  EXPECT_EQ(describe_gpu({{"gpu_name", 7}}).name, "");
}

}  // namespace
}  // namespace lb::cuda::logic
