// cuDNN and cuBLAS as the CUDA backend loaded them: missing, another major version, older than
// the headers, or built for another CUDA.
#include "harness/doctor/checks/check.hpp"

namespace lb::doctor {
namespace {

Finding not_loaded(const CheckContext& c, const char* subject, const char* display,
                   const LibraryInfo& lib, LibraryVersion (*decode)(int),
                   const std::string& windows_dll) {
  std::string message = std::string(display) + " could not be loaded";
  if (!lib.error.empty()) message += " (" + lib.error + ")";
  const std::string release = needed_release(c, display, lib, decode);
  std::string fix;
  if (c.windows())
    fix = "Install " + release + " and put the folder holding " + windows_dll + " on PATH.";
  else if (!lib.path.empty())  // a file of its name was found: it is broken or not the library
    fix = broken_file_fix(c, lib.path, release);
  else
    fix = "Install " + release +
          " where layerbench was built against it, or add its folder to LD_LIBRARY_PATH.";
  return {Severity::error, subject, message, {fix}};
}

void check_library(const CheckContext& c, const char* subject, const char* display,
                   const LibraryInfo& lib, LibraryVersion (*decode)(int),
                   const std::string& windows_dll, std::vector<Finding>& out) {
  if (!lib.loaded) {
    out.push_back(not_loaded(c, subject, display, lib, decode, windows_dll));
    return;
  }
  const LibraryVersion built = decode(lib.compiled_version);
  const LibraryVersion loaded = decode(lib.loaded_version);
  const std::string where = lib.path.empty() ? "" : " from " + lib.path;
  if (loaded.major != built.major) {
    out.push_back({Severity::error,
                   subject,
                   std::string(display) + ": built against " + text(built) + " but loaded " +
                       text(loaded) + where + " (a different major version)",
                   {"Make layerbench load " + std::string(display) + " " +
                    std::to_string(built.major) + ": remove the folder holding " + text(loaded) +
                    " from " + c.library_path_variable() + ", or rebuild layerbench against " +
                    std::string(display) + " " + std::to_string(loaded.major) + "."}});
    return;
  }
  if (lib.loaded_version < lib.compiled_version)
    out.push_back({Severity::warning,
                   subject,
                   std::string(display) + ": loaded " + text(loaded) + where +
                       " is older than the " + text(built) + " layerbench was built against",
                   {"Install " + std::string(display) + " " + text(built) + " or newer " +
                    std::to_string(built.major) + ".x."}});
  if (lib.cuda_version > 0 && c.s.nvidia.runtime_version > 0 &&
      cuda_major(lib.cuda_version) != cuda_major(c.s.nvidia.runtime_version))
    out.push_back({Severity::warning,
                   subject,
                   std::string(display) + " " + text(loaded) + " was built for CUDA " +
                       cuda_version_text(lib.cuda_version) + ", layerbench's runtime is CUDA " +
                       cuda_version_text(c.s.nvidia.runtime_version),
                   {"Install the " + std::string(display) + " build for CUDA " +
                    std::to_string(cuda_major(c.s.nvidia.runtime_version)) + ".x."}});
}

}  // namespace

void check_cudnn(const CheckContext& c, Diagnosis& d) {
  if (!c.s.nvidia.cuda_build) return;
  check_library(c, "cudnn", "cuDNN", c.s.nvidia.cudnn, decode_cudnn_version,
                "cudnn64_" +
                    std::to_string(decode_cudnn_version(c.s.nvidia.cudnn.compiled_version).major) +
                    ".dll",
                d.findings);
}

void check_cublas(const CheckContext& c, Diagnosis& d) {
  if (!c.s.nvidia.cuda_build) return;
  check_library(c, "cublas", "cuBLAS", c.s.nvidia.cublas, decode_cublas_version, "cublas64_*.dll",
                d.findings);
}

}  // namespace lb::doctor
