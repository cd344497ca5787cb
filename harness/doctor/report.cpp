#include "harness/doctor/report.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "harness/doctor/versions.hpp"

namespace lb::doctor {
namespace {

using nlohmann::json;

// One fact of the report, written once: where it goes in the JSON (a JSON pointer; empty: text
// only) and how it reads as text (a labelled row, a line of its own, or nothing: JSON only).
struct Row {
  enum class Text { none, labelled, line };
  std::string pointer;
  json value;
  Text kind = Text::none;
  std::string label, text;
};

Row both(std::string pointer, json value, std::string label, std::string text) {
  return {std::move(pointer), std::move(value), Row::Text::labelled, std::move(label),
          std::move(text)};
}
Row json_only(std::string pointer, json value) {
  return {std::move(pointer), std::move(value), Row::Text::none, "", ""};
}
Row labelled(std::string label, std::string text) {
  return {"", nullptr, Row::Text::labelled, std::move(label), std::move(text)};
}
Row line(std::string text, std::string pointer = "", json value = nullptr) {
  return {std::move(pointer), std::move(value), Row::Text::line, "", std::move(text)};
}

// A block of the text report under its heading, shown when a row has text or always is set.
// A container's empty value (an array, an object) comes before the rows that fill it.
struct Block {
  std::string heading;
  std::vector<Row> rows;
  bool heading_always = false;
};

// A JSON pointer token for a key that may hold '~' or '/' (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string token;
  for (char ch : key) token += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
  return token;
}

json optional_text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string cuda_text_or_null(int v) { return v > 0 ? cuda_version_text(v) : ""; }

std::string fixed(double v, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string gib(std::uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1ull << 30), 1) + " GiB";
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

const std::string kIndent(28, ' ');

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

std::string library_text(const LibraryInfo& lib, LibraryVersion (*decode)(int)) {
  if (!lib.loaded)
    return "built against " + text(decode(lib.compiled_version)) + ", NOT LOADED" +
           (lib.error.empty() ? "" : " (" + lib.error + ")");
  std::string s = "built against " + text(decode(lib.compiled_version)) + ", loaded " +
                  text(decode(lib.loaded_version));
  if (lib.cuda_version > 0) s += " (built for CUDA " + cuda_version_text(lib.cuda_version) + ")";
  if (!lib.path.empty()) s += "\n" + kIndent + lib.path;
  return s;
}

Block header_block(const Snapshot& s) {
  return {"layerbench doctor (layerbench " + std::string(build::version) + ", " +
              build::git_revision + ")",
          {json_only("/layerbench/version", build::version),
           json_only("/layerbench/git_revision", build::git_revision), json_only("/os", s.os)},
          true};
}

Block cpu_block(const CpuInfo& cpu) {
  Block b{
      "CPU",
      {both("/cpu/model", cpu.model, "model", cpu.model.empty() ? "unknown" : cpu.model),
       json_only("/cpu/cores", cpu.cores), json_only("/cpu/threads", cpu.threads),
       labelled("cores / threads", (cpu.cores > 0 ? std::to_string(cpu.cores) : "unknown") + " / " +
                                       std::to_string(cpu.threads)),
       json_only("/cpu/isa/avx2", cpu.avx2), json_only("/cpu/isa/avx512f", cpu.avx512f),
       json_only("/cpu/isa/avx512_bf16", cpu.avx512_bf16),
       json_only("/cpu/isa/avx512_fp16", cpu.avx512_fp16), json_only("/cpu/isa/amx", cpu.amx),
       labelled("ISA", std::string("AVX2 ") + yes_no(cpu.avx2) + ", AVX-512 " +
                           yes_no(cpu.avx512f) + ", AVX512-BF16 " + yes_no(cpu.avx512_bf16) +
                           ", AVX512-FP16 " + yes_no(cpu.avx512_fp16) + ", AMX " + yes_no(cpu.amx)),
       json_only("/cpu/fma_peak_method", optional_text(cpu.fma_peak_method))}};
  if (cpu.fma_peak_gflops > 0)
    b.rows.push_back(
        both("/cpu/fma_peak_gflops", cpu.fma_peak_gflops, "FP32 FMA peak",
             fixed(cpu.fma_peak_gflops, 1) + " GFLOP/s measured (" + cpu.fma_peak_method + ")"));
  else
    b.rows.push_back(json_only("/cpu/fma_peak_gflops", nullptr));
  return b;
}

Block driver_block(const DriverInfo& d) {
  Block b{"NVIDIA driver",
          {json_only("/driver/loaded", d.loaded),
           json_only("/driver/load_error", optional_text(d.load_error))}};
  if (d.loaded) {
    b.rows.push_back(both("/driver/library", d.library, "library", d.library));
    b.rows.push_back(both("/driver/version", optional_text(d.version), "version",
                          d.version.empty() ? "unknown" : d.version));
    b.rows.push_back(
        both("/driver/max_cuda", optional_text(cuda_text_or_null(d.max_cuda_version)),
             "supports CUDA up to",
             d.max_cuda_version > 0 ? cuda_version_text(d.max_cuda_version) : "unknown"));
  } else {
    b.rows.push_back(both("/driver/library", d.library, "library", d.library + ": not found"));
    b.rows.push_back(json_only("/driver/version", optional_text(d.version)));
    b.rows.push_back(
        json_only("/driver/max_cuda", optional_text(cuda_text_or_null(d.max_cuda_version))));
    if (!d.load_error.empty()) b.rows.push_back(labelled("loader says", d.load_error));
  }
  return b;
}

Block cuda_block(const Snapshot& s, const Diagnosis& d) {
  Block b{"CUDA",
          {json_only("/cuda_build", s.nvidia.cuda_build),
           json_only("/cuda_runtime", optional_text(cuda_text_or_null(s.nvidia.runtime_version))),
           json_only("/build_architectures", optional_text(s.nvidia.build_architectures)),
           json_only("/device_count", s.nvidia.device_count),
           json_only("/device_error", optional_text(s.nvidia.device_error)),
           json_only("/gpus", json::array())}};
  if (!s.nvidia.cuda_build) {
    b.rows.push_back(labelled("this build", "CPU only (built without CUDA)"));
    for (const char* key : {"/cudnn", "/cublas", "/cuda_plugin"})
      b.rows.push_back(json_only(key, nullptr));
    return b;
  }
  const PluginInfo& plugin = s.nvidia.cuda_plugin;
  b.rows.push_back(labelled("runtime (built in)", cuda_version_text(s.nvidia.runtime_version)));
  if (!d.driver_needed.empty()) b.rows.push_back(labelled("runtime needs", d.driver_needed));
  b.rows.push_back(labelled("architectures built", s.nvidia.build_architectures));
  b.rows.push_back(labelled(
      "devices", std::to_string(s.nvidia.device_count) +
                     (s.nvidia.device_error.empty() ? "" : " (" + s.nvidia.device_error + ")")));
  b.rows.push_back(both("/cudnn", library_json(s.nvidia.cudnn, decode_cudnn_version), "cuDNN",
                        library_text(s.nvidia.cudnn, decode_cudnn_version)));
  b.rows.push_back(both("/cublas", library_json(s.nvidia.cublas, decode_cublas_version), "cuBLAS",
                        library_text(s.nvidia.cublas, decode_cublas_version)));
  b.rows.push_back(both("/cuda_plugin",
                        {{"loaded", plugin.loaded},
                         {"path", optional_text(plugin.path)},
                         {"error", optional_text(plugin.error)}},
                        "CUDA backend",
                        plugin.loaded ? plugin.path : "NOT LOADED (" + plugin.error + ")"));
  return b;
}

Block gpu_block(const GpuInfo& g, std::size_t position, const Diagnosis& d) {
  const std::string at = "/gpus/" + std::to_string(position) + "/";
  const auto tc = d.tensor_cores.find(g.index);
  const json precisions = tc == d.tensor_cores.end() ? json::array() : json(tc->second);
  std::string tc_text;
  for (const auto& p : precisions) tc_text += (tc_text.empty() ? "" : ", ") + p.get<std::string>();
  const std::string cc = std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
  return {
      "GPU " + std::to_string(g.index) + ": " + g.name,
      {json_only(at + "index", g.index), json_only(at + "name", g.name),
       both(at + "compute_capability", cc, "compute capability", cc),
       both(at + "sm_count", g.sm_count, "SMs", std::to_string(g.sm_count)),
       json_only(at + "memory_total_bytes", g.memory_total),
       json_only(at + "memory_free_bytes", g.memory_free),
       labelled("memory", gib(g.memory_total) + " total, " + gib(g.memory_free) + " free"),
       json_only(at + "sm_clock_mhz", g.sm_clock_mhz),
       json_only(at + "memory_clock_mhz", g.memory_clock_mhz),
       labelled("clocks", std::to_string(g.sm_clock_mhz) + " MHz SM, " +
                              std::to_string(g.memory_clock_mhz) + " MHz memory"),
       json_only(at + "memory_bus_bits", g.memory_bus_bits), json_only(at + "l2_bytes", g.l2_bytes),
       labelled("memory bus / L2", std::to_string(g.memory_bus_bits) + " bits / " +
                                       fixed(static_cast<double>(g.l2_bytes) / (1 << 20), 1) +
                                       " MiB"),
       both(at + "build_has_code", g.build_has_code, "code in this build",
            yes_no(g.build_has_code)),
       both(at + "tensor_core_precisions", precisions, "Tensor Core precisions",
            tc_text.empty() ? "none" : tc_text)}};
}

// Windows only: the Linux report keeps its fields.
Block dll_block(const Snapshot& s) {
  Block b{
      "NVIDIA DLLs (search order: application folder, System32, Windows folder, current "
      "folder, PATH)",
      {json_only("/windows_dlls", json::array())}};
  if (s.nvidia.dlls.empty()) b.rows.push_back(line("  none found"));
  for (std::size_t i = 0; i < s.nvidia.dlls.size(); ++i) {
    const DllInfo& dll = s.nvidia.dlls[i];
    b.rows.push_back(both("/windows_dlls/" + std::to_string(i),
                          {{"name", dll.name},
                           {"family", dll.family},
                           {"folder", dll.folder},
                           {"origin", dll.origin},
                           {"version", optional_text(dll.version)},
                           {"error", optional_text(dll.error)}},
                          dll.name,
                          (dll.version.empty() ? std::string() : dll.version + ", ") + dll.folder +
                              " (" + dll.origin + ")"));
  }
  return b;
}

// "OpenBLAS compiled 0.3.21, loaded 0.3.21", then one indented line per note and the problem.
Row backend_row(const BackendFinding& f, std::size_t position) {
  const std::string compiled = f.compiled.empty() ? "unknown" : f.compiled;
  std::string text = f.library + " " +
                     (f.loaded.empty() ? "compiled " + compiled + ", NOT LOADED"
                                       : compiled_and_loaded(compiled, f.loaded));
  for (const auto& note : f.notes) text += "\n" + kIndent + note;
  if (f.problem)
    text += "\n" + kIndent + "problem: " + f.problem->problem + "\n" + kIndent +
            "fix: " + f.problem->fix;
  return both("/backends/" + std::to_string(position),
              {{"backend", f.backend},
               {"library", f.library},
               {"compiled", optional_text(f.compiled)},
               {"loaded", optional_text(f.loaded)},
               {"notes", f.notes},
               {"problem", f.problem ? json(f.problem->problem) : json(nullptr)},
               {"fix", f.problem ? json(f.problem->fix) : json(nullptr)}},
              f.backend, text);
}

Block backends_block(const Snapshot& s) {
  Block b{"Backends", {json_only("/backends", json::array())}};
  for (std::size_t i = 0; i < s.backends.size(); ++i)
    b.rows.push_back(backend_row(s.backends[i], i));
  return b;
}

Block env_block(const Snapshot& s) {
  Block b{"Environment", {json_only("/env", json::object())}, true};
  for (const auto& [name, value] : s.env)
    b.rows.push_back(both("/env/" + pointer_token(name), value ? json(*value) : json(nullptr), name,
                          value ? "\"" + *value + "\"" : "(unset)"));
  return b;
}

Block findings_block(const Diagnosis& d) {
  Block b{"Findings", {json_only("/diagnosis/findings", json::array())}};
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    b.rows.push_back(line("  " + std::string(name(f.severity)) + ": " + f.message,
                          "/diagnosis/findings/" + std::to_string(i),
                          {{"severity", name(f.severity)},
                           {"subject", f.subject},
                           {"message", f.message},
                           {"fixes", f.fixes}}));
  }
  return b;
}

Block framework_block(const FrameworkCheck& framework) {
  Block b{"TensorFlow " + framework.target.version + " was tested with " + framework.tested_with,
          {json_only("/framework_check/framework", framework.target.framework),
           json_only("/framework_check/version", framework.target.version),
           json_only("/framework_check/tested_with", framework.tested_with),
           json_only("/framework_check/checks", json::array())}};
  for (std::size_t i = 0; i < framework.checks.size(); ++i) {
    const RequirementCheck& c = framework.checks[i];
    b.rows.push_back(line(std::string("  ") + (c.ok ? "match    " : "MISMATCH ") + c.item +
                              ": needs " + c.required + "; found " + c.found,
                          "/framework_check/checks/" + std::to_string(i),
                          {{"item", c.item},
                           {"required", c.required},
                           {"found", c.found},
                           {"ok", c.ok},
                           {"note", optional_text(c.note)}}));
    if (!c.note.empty()) b.rows.push_back(line("           " + c.note));
  }
  b.rows.push_back(
      line(std::string("  ") + (framework.all_ok ? "Everything matches."
                                                 : "Not everything matches (see MISMATCH above)."),
           "/framework_check/all_ok", framework.all_ok));
  return b;
}

Block verdict_block(const Diagnosis& d) {
  Block b{
      d.verdict,
      {json_only("/diagnosis/gpu_usable", d.gpu_usable), json_only("/diagnosis/verdict", d.verdict),
       json_only("/diagnosis/reason", optional_text(d.reason)),
       json_only("/diagnosis/fixes", d.fixes), json_only("/diagnosis/usable_gpus", d.usable_gpus),
       json_only("/diagnosis/driver_needed", optional_text(d.driver_needed))},
      true};
  if (!d.gpu_usable && !d.fixes.empty()) {
    b.rows.push_back(line("How to fix:"));
    for (std::size_t i = 0; i < d.fixes.size(); ++i)
      b.rows.push_back(line("  " + std::to_string(i + 1) + ". " + d.fixes[i]));
  }
  return b;
}

std::vector<Block> blocks(const Snapshot& s, const Diagnosis& d,
                          const std::optional<FrameworkCheck>& framework) {
  std::vector<Block> out = {header_block(s), cpu_block(s.cpu), driver_block(s.nvidia.driver),
                            cuda_block(s, d)};
  for (std::size_t i = 0; i < s.nvidia.gpus.size(); ++i)
    out.push_back(gpu_block(s.nvidia.gpus[i], i, d));
  if (s.nvidia.dll_search) out.push_back(dll_block(s));
  out.push_back(backends_block(s));
  out.push_back(env_block(s));
  out.push_back(findings_block(d));
  if (framework) out.push_back(framework_block(*framework));
  out.push_back(verdict_block(d));
  return out;
}

bool has_text(const Block& b) {
  if (b.heading_always) return true;
  for (const auto& row : b.rows)
    if (row.kind != Row::Text::none) return true;
  return false;
}

}  // namespace

json to_json(const Snapshot& s, const Diagnosis& d,
             const std::optional<FrameworkCheck>& framework) {
  json j = json::object();
  for (const auto& block : blocks(s, d, framework))
    for (const auto& row : block.rows)
      if (!row.pointer.empty()) j[json::json_pointer(row.pointer)] = row.value;
  return j;
}

void print_text(std::ostream& out, const Snapshot& s, const Diagnosis& d,
                const std::optional<FrameworkCheck>& framework) {
  bool first = true;
  for (const auto& block : blocks(s, d, framework)) {
    if (!has_text(block)) continue;
    out << (first ? "" : "\n") << block.heading << "\n";
    first = false;
    for (const auto& row : block.rows) {
      if (row.kind == Row::Text::line) out << row.text << "\n";
      if (row.kind != Row::Text::labelled) continue;
      const std::size_t pad = row.label.size() < 26 ? 26 - row.label.size() : 1;
      out << "  " << row.label << std::string(pad, ' ') << row.text << "\n";
    }
  }
}

}  // namespace lb::doctor
