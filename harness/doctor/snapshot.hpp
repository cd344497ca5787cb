#pragma once
// What the doctor probed, as plain data. The diagnosis (diagnose.hpp) is a pure function of
// this snapshot, so tests feed it fabricated machines.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lb::doctor {

// Versions are integers as the libraries report them: CUDA 12040 = 12.4,
// cuDNN 91900 = 9.19.0, driver as "major.minor[.patch]" text (e.g. "580.65.06").
struct CpuInfo {
  std::string model;
  int cores = 0;    // physical
  int threads = 0;  // logical
  bool avx2 = false, avx512f = false, avx512_bf16 = false, avx512_fp16 = false, amx = false;
  double fma_peak_gflops = 0;   // measured by the FMA microbenchmark, 0 if not measured
  std::string fma_peak_method;  // how it was measured (harness/measure/cpu_peak.hpp), empty if not
};

struct DriverInfo {
  bool loaded = false;
  std::string library;       // name that was tried/loaded: "libcuda.so.1" or "nvcuda.dll"
  std::string load_error;    // dlerror()/GetLastError text when not loaded
  std::string version;       // "580.65.06"; empty when unknown
  int max_cuda_version = 0;  // cuDriverGetVersion, e.g. 13000
};

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_total = 0, memory_free = 0;
  int sm_clock_mhz = 0, memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  std::uint64_t l2_bytes = 0;
  bool build_has_code = false;  // this binary carries SASS/PTX usable on this architecture
};

struct LibraryInfo {
  bool loaded = false;
  int compiled_version = 0;  // from the headers this build used
  int loaded_version = 0;    // reported by the library at run time
  int cuda_version = 0;      // cuDNN: the CUDA version it was built for (cudnnGetCudartVersion)
  std::string error;         // why it is not loaded: the loader's message, or the symbol it lacks
  // The file it was loaded from, where the OS can tell; when a file of its name failed to load,
  // that file, as the loader's message names it (empty when none was found).
  std::string path;
};

// The CUDA backend's plugin (liblayerbench_cuda.so), which the binary loads at run time once
// cuDNN and cuBLAS have loaded: every CUDA call is in it.
struct PluginInfo {
  bool loaded = false;
  std::string path;   // the file loaded, or the first place it was looked for
  std::string error;  // why not: the loader's message, or that a library it needs did not load
};

// An NVIDIA DLL found along Windows' DLL search order (windows_dlls.hpp).
struct DllInfo {
  std::string name;     // the file name as found, e.g. "cudart64_110.dll"
  std::string family;   // "driver", "cudart", "cublas", "cublasLt", "cudnn", "cudnn_sublibrary"
  std::string folder;   // where it was found first
  std::string origin;   // which step of the search order that folder is, e.g. "PATH"
  std::string version;  // as the DLL reports it, e.g. "11.2"; empty when not read
  std::string error;    // why the version could not be read
};

// What one backend knows about its own library, whatever the backend (a ROCm or Apple backend
// adds its rows here without touching harness/). Filled by its descriptor's probe.
struct BackendProblem {
  std::string problem;  // what is wrong, e.g. the loader's message
  std::string fix;      // what to do about it
};

struct BackendFinding {
  std::string backend;             // the descriptor's name, "openblas"
  std::string library;             // the library's own name, "OpenBLAS"
  std::string compiled;            // version the headers came with; empty when unknown
  std::string loaded;              // version loaded at run time; empty when it did not load
  std::vector<std::string> notes;  // further facts: build options, file, dispatch
  std::optional<BackendProblem> problem;
};

// The NVIDIA stack: what the CUDA backend's probe found (its build, the driver, the GPUs, cuDNN,
// cuBLAS, its plugin) and, on Windows, the NVIDIA DLLs along the search order that frameworks
// load. The doctor's NVIDIA checks and the framework verdicts read it.
struct NvidiaStack {
  bool cuda_build = false;          // built with the CUDA backend: its probe sets this
  std::string build_architectures;  // "75;80;86;89;90", from the same probe
  int runtime_version = 0;          // CUDA runtime linked into the plugin, e.g. 13000
  DriverInfo driver;
  int device_count = 0;
  std::string device_error;  // cudaGetDeviceCount's error, if any
  std::vector<GpuInfo> gpus;
  LibraryInfo cudnn, cublas;
  PluginInfo cuda_plugin;     // CUDA builds: the loader fills it and the fields above
  bool dll_search = false;    // Windows: the DLL search order was searched (dlls below)
  std::vector<DllInfo> dlls;  // NVIDIA DLLs found, in search order
};

struct Snapshot {
  std::string os;  // "linux" or "windows"
  CpuInfo cpu;
  NvidiaStack nvidia;
  std::map<std::string, std::optional<std::string>> env;  // variables that change the outcome
  std::vector<BackendFinding> backends;  // one per backend that reported, in registry order
};

}  // namespace lb::doctor
