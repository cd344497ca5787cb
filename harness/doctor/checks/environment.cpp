// Environment variables that hide GPUs or change what cuBLAS and cuDNN compute.
#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {

void check_environment(const CheckContext& c, Diagnosis& d) {
  auto& out = d.findings;
  if (const auto v = c.env("CUDA_VISIBLE_DEVICES")) {
    if (visible_devices_hide_all(*v))
      out.push_back(
          {Severity::error,
           "env",
           "CUDA_VISIBLE_DEVICES=\"" + *v + "\" hides every GPU",
           {c.windows()
                ? "Clear it (`set CUDA_VISIBLE_DEVICES=`) or list the GPUs to use, e.g. 0."
                : "Unset it (`unset CUDA_VISIBLE_DEVICES`) or list the GPUs to use, e.g. 0."}});
    else
      out.push_back({Severity::info,
                     "env",
                     "CUDA_VISIBLE_DEVICES=" + *v +
                         ": only these GPUs are visible, numbered from 0 in this order",
                     {}});
  }
  if (const auto v = c.env("NVIDIA_TF32_OVERRIDE"); v && *v == "0")
    out.push_back(
        {Severity::warning,
         "env",
         "NVIDIA_TF32_OVERRIDE=0 turns TF32 Tensor Core math off in cuBLAS and cuDNN: TF32 "
         "points run as plain FP32",
         {"Unset NVIDIA_TF32_OVERRIDE to measure TF32."}});
  if (const auto v = c.env("CUBLAS_WORKSPACE_CONFIG"))
    out.push_back({Severity::info,
                   "env",
                   "CUBLAS_WORKSPACE_CONFIG=" + *v +
                       " fixes cuBLAS's workspace (set for deterministic "
                       "results); it can change which GEMM algorithms cuBLAS may use",
                   {}});
  if (const auto v = c.env(c.library_path_variable()); v && !v->empty())
    out.push_back(
        {Severity::info,
         "env",
         std::string(c.library_path_variable()) + " is set: libraries found there " +
             (c.windows() ? "are found before others; " + windows_dll_note()
                          : "take precedence over the run path layerbench was built with"),
         {}});
}

}  // namespace lb::doctor
