// Each GPU: whether this build carries code for it, its Tensor Core precisions, and a warning
// when its memory is small. A GPU without code only blocks when no other GPU can run.
#include <algorithm>
#include <regex>

#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {
namespace {

// "75;80-real;90-virtual" -> {75, 80, 90}; CMake's CUDA_ARCHITECTURES syntax.
std::vector<int> architectures(const std::string& list) {
  std::vector<int> archs;
  static const std::regex number(R"(\d+)");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), number);
       it != std::sregex_iterator(); ++it)
    archs.push_back(std::stoi(it->str()));
  return archs;
}

Finding no_code_for(const CheckContext& c, const GpuInfo& g) {
  const auto archs = architectures(c.s.nvidia.build_architectures);
  const int cc = g.cc_major * 10 + g.cc_minor;
  const std::string sm = std::to_string(cc);
  Finding f{Severity::error,
            "gpu " + std::to_string(g.index),
            gpu_label(g) + ": this build carries no code for it (built for " +
                (c.s.nvidia.build_architectures.empty() ? "unknown architectures"
                                                        : c.s.nvidia.build_architectures) +
                ")",
            {}};
  const int oldest = archs.empty() ? 0 : *std::min_element(archs.begin(), archs.end());
  if (!archs.empty() && cc < oldest) {
    f.message += "; compute capability " + cc_text(g) + " is older than the oldest built, " +
                 std::to_string(oldest / 10) + "." + std::to_string(oldest % 10);
    f.fixes = {"Rebuild with -DCMAKE_CUDA_ARCHITECTURES=\"" + sm + ";" +
               c.s.nvidia.build_architectures +
               "\" using a CUDA toolkit whose nvcc still supports sm_" + sm +
               " (check with `nvcc --list-gpu-arch`)."};
  } else {
    f.fixes = {"Rebuild with " + sm +
               " added to -DCMAKE_CUDA_ARCHITECTURES (or \"native\" on this machine)."};
  }
  return f;
}

}  // namespace

void check_gpus(const CheckContext& c, Diagnosis& d) {
  std::vector<Finding> no_code;
  for (const auto& g : c.s.nvidia.gpus) {
    d.tensor_cores[g.index] = tensor_core_precisions(c.facts, g.cc_major, g.cc_minor);
    if (g.build_has_code)
      d.usable_gpus.push_back(g.index);
    else
      no_code.push_back(no_code_for(c, g));
    if (static_cast<double>(g.memory_total) < kSmallGpuMemoryBytes)
      d.findings.push_back(
          {Severity::warning,
           "gpu " + std::to_string(g.index),
           gpu_label(g) + " has " + gib(g.memory_total) +
               ", less than 6 GB: the larger layers at large batch sizes may not fit",
           {"Use smaller batch sizes on this GPU."}});
  }
  for (auto& f : no_code) {
    if (!d.usable_gpus.empty()) f.severity = Severity::warning;
    d.findings.push_back(f);
  }
}

}  // namespace lb::doctor
