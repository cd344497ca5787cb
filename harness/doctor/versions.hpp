#pragma once
// Version numbers as NVIDIA's libraries encode them, decoded and compared. Pure functions.
#include <cstddef>
#include <string>
#include <vector>

namespace lb::doctor {

struct LibraryVersion {
  int major = 0, minor = 0, patch = 0;
};

// CUDA: 1000 x major + 10 x minor (cudaRuntimeGetVersion, cuDriverGetVersion): 12040 = 12.4.
int cuda_major(int cuda_version);
std::string cuda_version_text(int cuda_version);  // "12.4"; "unknown" for 0
// "12.4" -> 12040; throws std::invalid_argument on anything else (a minor above 99, a major
// whose encoding overflows an int).
int parse_cuda_version(const std::string& text);

// cuDNN 9+: 10000 x major + 100 x minor + patch (91900 = 9.19.0);
// cuDNN 8 and older: 1000 x major + 100 x minor + patch (8907 = 8.9.7).
LibraryVersion decode_cudnn_version(int version);
// cuBLAS 12+: 10000 x major + 100 x minor + patch (130100 = 13.1.0);
// cuBLAS 11: 1000 x major + 100 x minor + patch.
LibraryVersion decode_cublas_version(int version);
std::string text(const LibraryVersion& v);  // "9.19.0"
// "compiled 9.1.0, loaded 9.19.0": they differ when the loader finds another copy.
std::string compiled_and_loaded(const std::string& compiled, const std::string& loaded);

// Dotted numeric versions ("525.60.13", "2.15"): parts as integers; throws std::invalid_argument
// unless every part is a number of 1 to 9 digits (no empty part, no leading or trailing dot).
std::vector<int> dotted(const std::string& text);
// Whether `text` is a dotted version (as dotted() reads it) of min_parts to max_parts parts.
bool is_dotted_version(const std::string& text, std::size_t min_parts, std::size_t max_parts);
// have >= need, comparing part by part ("580.65.06" >= "580").
bool version_at_least(const std::string& have, const std::string& need);

// The driver version in the NVIDIA kernel module's version text (/proc/driver/nvidia/version):
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ..." -> "580.65.06"; empty if none.
std::string driver_version_from_module_text(const std::string& text);

}  // namespace lb::doctor
