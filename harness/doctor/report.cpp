#include "harness/doctor/report.hpp"

#include <cstdio>
#include <string>

#include "build_info.hpp"
#include "harness/doctor/versions.hpp"

namespace lb::doctor {
namespace {

using nlohmann::json;

json optional_text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string cuda_text_or_null(int v) { return v > 0 ? cuda_version_text(v) : ""; }

json library_json(const LibraryInfo& lib, LibraryVersion (*decode)(int)) {
  return {{"loaded", lib.loaded},
          {"compiled_version",
           lib.compiled_version > 0 ? json(text(decode(lib.compiled_version))) : json(nullptr)},
          {"loaded_version", lib.loaded && lib.loaded_version > 0
                                 ? json(text(decode(lib.loaded_version)))
                                 : json(nullptr)},
          {"built_for_cuda", optional_text(cuda_text_or_null(lib.cuda_version))},
          {"path", optional_text(lib.path)},
          {"error", optional_text(lib.error)}};
}

std::string fixed(double v, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string gib(std::uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1ull << 30), 1) + " GiB";
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

void row(std::ostream& out, const std::string& label, const std::string& value) {
  out << "  " << label << std::string(label.size() < 26 ? 26 - label.size() : 1, ' ') << value
      << "\n";
}

std::string library_text(const LibraryInfo& lib, LibraryVersion (*decode)(int)) {
  if (!lib.loaded)
    return "built against " + text(decode(lib.compiled_version)) + ", NOT LOADED" +
           (lib.error.empty() ? "" : " (" + lib.error + ")");
  std::string s = "built against " + text(decode(lib.compiled_version)) + ", loaded " +
                  text(decode(lib.loaded_version));
  if (lib.cuda_version > 0) s += " (built for CUDA " + cuda_version_text(lib.cuda_version) + ")";
  if (!lib.path.empty()) s += "\n" + std::string(28, ' ') + lib.path;
  return s;
}

json backend_json(const BackendFinding& f) {
  return {{"backend", f.backend},
          {"library", f.library},
          {"compiled", optional_text(f.compiled)},
          {"loaded", optional_text(f.loaded)},
          {"notes", f.notes},
          {"problem", f.problem ? json(f.problem->problem) : json(nullptr)},
          {"fix", f.problem ? json(f.problem->fix) : json(nullptr)}};
}

// "OpenBLAS compiled 0.3.21, loaded 0.3.21", then one indented line per note and the problem.
void print_backend(std::ostream& out, const BackendFinding& f) {
  const std::string compiled = f.compiled.empty() ? "unknown" : f.compiled;
  row(out, f.backend,
      f.library + " " +
          (f.loaded.empty() ? "compiled " + compiled + ", NOT LOADED"
                            : compiled_and_loaded(compiled, f.loaded)));
  const std::string indent(28, ' ');
  for (const auto& note : f.notes) out << indent << note << "\n";
  if (f.problem) {
    out << indent << "problem: " << f.problem->problem << "\n";
    out << indent << "fix: " << f.problem->fix << "\n";
  }
}

}  // namespace

json to_json(const Snapshot& s, const Diagnosis& d,
             const std::optional<FrameworkCheck>& framework) {
  json j;
  j["layerbench"] = {{"version", build::version}, {"git_revision", build::git_revision}};
  j["os"] = s.os;
  j["cpu"] = {
      {"model", s.cpu.model},
      {"cores", s.cpu.cores},
      {"threads", s.cpu.threads},
      {"isa",
       {{"avx2", s.cpu.avx2},
        {"avx512f", s.cpu.avx512f},
        {"avx512_bf16", s.cpu.avx512_bf16},
        {"avx512_fp16", s.cpu.avx512_fp16},
        {"amx", s.cpu.amx}}},
      {"fma_peak_gflops", s.cpu.fma_peak_gflops > 0 ? json(s.cpu.fma_peak_gflops) : json(nullptr)},
      {"fma_peak_method", optional_text(s.cpu.fma_peak_method)}};
  j["cuda_build"] = s.cuda_build;
  j["build_architectures"] = optional_text(s.build_architectures);
  j["cuda_runtime"] = optional_text(cuda_text_or_null(s.runtime_version));
  j["driver"] = {{"loaded", s.driver.loaded},
                 {"library", s.driver.library},
                 {"load_error", optional_text(s.driver.load_error)},
                 {"version", optional_text(s.driver.version)},
                 {"max_cuda", optional_text(cuda_text_or_null(s.driver.max_cuda_version))}};
  j["device_count"] = s.device_count;
  j["device_error"] = optional_text(s.device_error);
  j["gpus"] = json::array();
  for (const auto& g : s.gpus) {
    const auto tc = d.tensor_cores.find(g.index);
    j["gpus"].push_back(
        {{"index", g.index},
         {"name", g.name},
         {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
         {"sm_count", g.sm_count},
         {"memory_total_bytes", g.memory_total},
         {"memory_free_bytes", g.memory_free},
         {"sm_clock_mhz", g.sm_clock_mhz},
         {"memory_clock_mhz", g.memory_clock_mhz},
         {"memory_bus_bits", g.memory_bus_bits},
         {"l2_bytes", g.l2_bytes},
         {"build_has_code", g.build_has_code},
         {"tensor_core_precisions",
          tc == d.tensor_cores.end() ? json::array() : json(tc->second)}});
  }
  if (s.cuda_build) {
    j["cudnn"] = library_json(s.cudnn, decode_cudnn_version);
    j["cublas"] = library_json(s.cublas, decode_cublas_version);
    j["cuda_plugin"] = {{"loaded", s.cuda_plugin.loaded},
                        {"path", optional_text(s.cuda_plugin.path)},
                        {"error", optional_text(s.cuda_plugin.error)}};
  } else {
    j["cudnn"] = j["cublas"] = j["cuda_plugin"] = nullptr;
  }
  if (s.dll_search) {  // Windows only: the Linux report keeps its fields
    j["windows_dlls"] = json::array();
    for (const auto& dll : s.dlls)
      j["windows_dlls"].push_back({{"name", dll.name},
                                   {"family", dll.family},
                                   {"folder", dll.folder},
                                   {"origin", dll.origin},
                                   {"version", optional_text(dll.version)},
                                   {"error", optional_text(dll.error)}});
  }
  j["backends"] = json::array();
  for (const auto& f : s.backends) j["backends"].push_back(backend_json(f));
  j["env"] = json::object();
  for (const auto& [name, value] : s.env) j["env"][name] = value ? json(*value) : json(nullptr);
  json findings = json::array();
  for (const auto& f : d.findings)
    findings.push_back({{"severity", name(f.severity)},
                        {"subject", f.subject},
                        {"message", f.message},
                        {"fixes", f.fixes}});
  j["diagnosis"] = {{"gpu_usable", d.gpu_usable},
                    {"verdict", d.verdict},
                    {"reason", optional_text(d.reason)},
                    {"fixes", d.fixes},
                    {"usable_gpus", d.usable_gpus},
                    {"driver_needed", optional_text(d.driver_needed)},
                    {"findings", findings}};
  if (framework) {
    json checks = json::array();
    for (const auto& c : framework->checks)
      checks.push_back({{"item", c.item},
                        {"required", c.required},
                        {"found", c.found},
                        {"ok", c.ok},
                        {"note", optional_text(c.note)}});
    j["framework_check"] = {{"framework", framework->target.framework},
                            {"version", framework->target.version},
                            {"tested_with", framework->tested_with},
                            {"all_ok", framework->all_ok},
                            {"checks", checks}};
  }
  return j;
}

void print_text(std::ostream& out, const Snapshot& s, const Diagnosis& d,
                const std::optional<FrameworkCheck>& framework) {
  out << "layerbench doctor (layerbench " << build::version << ", " << build::git_revision
      << ")\n\n";

  out << "CPU\n";
  row(out, "model", s.cpu.model.empty() ? "unknown" : s.cpu.model);
  row(out, "cores / threads",
      (s.cpu.cores > 0 ? std::to_string(s.cpu.cores) : "unknown") + " / " +
          std::to_string(s.cpu.threads));
  row(out, "ISA",
      std::string("AVX2 ") + yes_no(s.cpu.avx2) + ", AVX-512 " + yes_no(s.cpu.avx512f) +
          ", AVX512-BF16 " + yes_no(s.cpu.avx512_bf16) + ", AVX512-FP16 " +
          yes_no(s.cpu.avx512_fp16) + ", AMX " + yes_no(s.cpu.amx));
  if (s.cpu.fma_peak_gflops > 0)
    row(out, "FP32 FMA peak",
        fixed(s.cpu.fma_peak_gflops, 1) + " GFLOP/s measured (" + s.cpu.fma_peak_method + ")");

  out << "\nNVIDIA driver\n";
  if (s.driver.loaded) {
    row(out, "library", s.driver.library);
    row(out, "version", s.driver.version.empty() ? "unknown" : s.driver.version);
    row(out, "supports CUDA up to",
        s.driver.max_cuda_version > 0 ? cuda_version_text(s.driver.max_cuda_version) : "unknown");
  } else {
    row(out, "library", s.driver.library + ": not found");
    if (!s.driver.load_error.empty()) row(out, "loader says", s.driver.load_error);
  }

  out << "\nCUDA\n";
  if (!s.cuda_build) {
    row(out, "this build", "CPU only (built without CUDA)");
  } else {
    row(out, "runtime (built in)", cuda_version_text(s.runtime_version));
    if (!d.driver_needed.empty()) row(out, "runtime needs", d.driver_needed);
    row(out, "architectures built", s.build_architectures);
    row(out, "devices",
        std::to_string(s.device_count) +
            (s.device_error.empty() ? "" : " (" + s.device_error + ")"));
    row(out, "cuDNN", library_text(s.cudnn, decode_cudnn_version));
    row(out, "cuBLAS", library_text(s.cublas, decode_cublas_version));
    row(out, "CUDA backend",
        s.cuda_plugin.loaded ? s.cuda_plugin.path : "NOT LOADED (" + s.cuda_plugin.error + ")");
  }

  for (const auto& g : s.gpus) {
    out << "\nGPU " << g.index << ": " << g.name << "\n";
    row(out, "compute capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor));
    row(out, "SMs", std::to_string(g.sm_count));
    row(out, "memory", gib(g.memory_total) + " total, " + gib(g.memory_free) + " free");
    row(out, "clocks",
        std::to_string(g.sm_clock_mhz) + " MHz SM, " + std::to_string(g.memory_clock_mhz) +
            " MHz memory");
    row(out, "memory bus / L2",
        std::to_string(g.memory_bus_bits) + " bits / " +
            fixed(static_cast<double>(g.l2_bytes) / (1 << 20), 1) + " MiB");
    row(out, "code in this build", yes_no(g.build_has_code));
    std::string tc;
    if (const auto it = d.tensor_cores.find(g.index); it != d.tensor_cores.end())
      for (const auto& p : it->second) tc += (tc.empty() ? "" : ", ") + p;
    row(out, "Tensor Core precisions", tc.empty() ? "none" : tc);
  }

  if (s.dll_search) {
    out << "\nNVIDIA DLLs (search order: application folder, System32, Windows folder, current "
           "folder, PATH)\n";
    if (s.dlls.empty()) out << "  none found\n";
    for (const auto& dll : s.dlls)
      row(out, dll.name,
          (dll.version.empty() ? std::string() : dll.version + ", ") + dll.folder + " (" +
              dll.origin + ")");
  }

  if (!s.backends.empty()) {
    out << "\nBackends\n";
    for (const auto& f : s.backends) print_backend(out, f);
  }

  out << "\nEnvironment\n";
  for (const auto& [name, value] : s.env) row(out, name, value ? "\"" + *value + "\"" : "(unset)");

  if (!d.findings.empty()) {
    out << "\nFindings\n";
    for (const auto& f : d.findings) out << "  " << name(f.severity) << ": " << f.message << "\n";
  }

  if (framework) {
    out << "\nTensorFlow " << framework->target.version << " was tested with "
        << framework->tested_with << "\n";
    for (const auto& c : framework->checks) {
      out << "  " << (c.ok ? "match    " : "MISMATCH ") << c.item << ": needs " << c.required
          << "; found " << c.found << "\n";
      if (!c.note.empty()) out << "           " << c.note << "\n";
    }
    out << "  "
        << (framework->all_ok ? "Everything matches."
                              : "Not everything matches (see MISMATCH above).")
        << "\n";
  }

  out << "\n" << d.verdict << "\n";
  if (!d.gpu_usable && !d.fixes.empty()) {
    out << "How to fix:\n";
    for (std::size_t i = 0; i < d.fixes.size(); ++i)
      out << "  " << i + 1 << ". " << d.fixes[i] << "\n";
  }
}

}  // namespace lb::doctor
