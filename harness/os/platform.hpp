#pragma once
// The small platform layer: everything OS-specific (dynamic loading, executable location,
// CPU feature detection) lives behind these functions so the rest stays portable C++.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lb::platform {

bool is_windows();

// The running executable's path (/proc/self/exe on Linux, GetModuleFileName on Windows).
std::filesystem::path executable_path();

// Dynamic loading without linking: used to probe the NVIDIA driver and libraries that may be
// absent. load_library returns nullptr and fills `error` with the loader's message on failure.
void* load_library(const std::string& name, std::string& error);
void* find_symbol(void* library, const char* symbol);
// The file a loaded library came from (the path the loader found for a bare name), where the OS
// can tell.
std::string library_path(void* library);
// The folders the dynamic loader searches for a bare library name loaded from this program, in
// its order (LD_LIBRARY_PATH, the run path, the system folders; not ld.so.cache): Linux's
// dlinfo(RTLD_DI_SERINFO). Empty elsewhere.
std::vector<std::string> library_search_folders();

// Value of an environment variable; empty optional when unset (set-but-empty is "").
std::optional<std::string> getenv_opt(const char* name);

// This machine's name, for the results file's context.
std::string hostname();
// The current UTC time formatted by std::strftime's `format`, e.g. "%Y-%m-%dT%H:%M:%SZ".
std::string utc_now(const char* format);
// Whether standard error is a terminal (progress then updates one line in place).
bool stderr_is_terminal();

// Size of the largest (last-level) CPU cache one core uses, in bytes; 0 when the OS cannot
// tell. Sizes the bandwidth test's buffers beyond the caches.
std::uint64_t last_level_cache_bytes();

// Writes back and drops every cache line of [data, data + bytes) from every cache level of
// every core, and waits until that is done: the next access comes from memory. x86 only
// (CLFLUSHOPT, or CLFLUSH where the CPU lacks it): can_evict_from_caches() says whether this
// build on this CPU can, and evict_from_caches does nothing where it cannot.
bool can_evict_from_caches();
void evict_from_caches(const void* data, std::size_t bytes);

// The CPU as the doctor and the FMA microbenchmark need it. ISA flags are true only when both
// the CPU has the instructions (CPUID) and the OS saves their registers (XGETBV): a CPU flag
// alone is not enough to run them.
struct CpuFeatures {
  std::string model;  // CPUID brand string, e.g. "AMD EPYC 7763 64-Core Processor"
  int cores = 0;      // physical cores; 0 when the OS cannot tell
  int threads = 0;    // logical processors
  bool avx2 = false, fma = false, avx512f = false, avx512_bf16 = false, avx512_fp16 = false;
  bool amx = false;  // AMX tiles with BF16 (AMX-TILE and AMX-BF16)
};
CpuFeatures cpu_features();

// File names of the NVIDIA driver's user-mode library and of NVML on this OS.
const char* nvidia_driver_library();  // "libcuda.so.1" or "nvcuda.dll"
const char* nvml_library();           // "libnvidia-ml.so.1" or "nvml.dll"
// The NVIDIA kernel module's version text (Linux: /proc/driver/nvidia/version); empty optional
// where the OS has no such file or it is absent (no driver loaded).
std::optional<std::string> nvidia_kernel_module_text();

// The folders Windows searches for a DLL loaded by name, before PATH's (the standard search
// order of desktop programs, SafeDllSearchMode on): the executable's folder, the system folder
// (System32), the Windows folder and the current folder, each with the step's name. Empty on
// other systems.
struct SearchFolder {
  std::string folder;
  std::string origin;  // "application folder", "system folder", "Windows folder", "current folder"
};
std::vector<SearchFolder> dll_search_folders_before_path();

// Read around each timed CPU sample to tell one that lost its core: the CPU time of this
// process's threads, their involuntary switches and their run-queue wait, -1 where the OS does
// not tell (docs/measuring.md, "Busy machines", names each source and why all three).
struct CpuUsage {
  double cpu_s = 0;
  long long involuntary_switches = -1;  // -1 where the OS does not count them
  double run_queue_wait_s = -1;
};
CpuUsage process_cpu_usage();

// The machine's state as `run` records it (Linux; empty optionals where the OS cannot tell):
// /proc/loadavg's one-minute load average and its count of tasks runnable now (all processes,
// this one's running threads included); how many of this process's threads are running now
// (/proc/self/task/*/stat); the CPU frequency governor of CPU 0 (cpufreq).
struct RunQueue {
  double load_average_1m = 0;
  int runnable = 0;
};
std::optional<RunQueue> run_queue();
std::optional<int> own_running_threads();
std::optional<std::string> cpu_frequency_governor();
// This process's id.
unsigned process_id();
// Binds the calling thread to the `index`-th processor this process may run on (counted modulo
// how many it may); false where the OS refuses or cannot.
bool pin_this_thread(int index);

// The file of the loaded library (or executable) that contains `address`; empty if unknown.
std::string module_path_of(const void* address);

// Opens /dev/null read-only on each of descriptors 0-2 that was closed (`layerbench ... >&-`):
// otherwise the next file opened (a results file's lock) would take the number and receive
// what is printed to the stream, and a write to the closed stream now fails (EBADF) where it can
// be reported.
void fill_closed_standard_streams();
// Whether standard output is a pipe whose reader has gone (`run | head -1` after head ended).
bool stdout_reader_gone();

// Whether `bytes` of address space can still be mapped now: a reservation that commits no memory,
// made and released at once. Binds under `ulimit -v` (RLIMIT_AS).
bool address_space_available(std::uint64_t bytes);
// The address-space limit (`ulimit -v`, RLIMIT_AS) in bytes; empty when there is none.
std::optional<std::uint64_t> address_space_limit();
// The stack a new thread gets when it asks for no size (glibc: `ulimit -s`); 0 where unknown.
std::uint64_t default_thread_stack_bytes();
// Under an address-space limit, makes every thread allocate from glibc's one main heap (mallopt
// M_ARENA_MAX 1); true when it did. A thread's own heap reserves 64 MiB of address space, and
// whether a worker thread gets one depends on timing: under the limit that decided which points
// fit. Call before other threads allocate. No limit, or not glibc: nothing, false.
bool share_one_heap_under_address_limit();

// Transparent huge pages (Linux): asks the kernel to back [data, data + bytes) with huge pages
// as its pages are first touched (madvise MADV_HUGEPAGE); false where the OS has no such advice
// or refuses it. The kernel still falls back to 4 KiB pages where it finds no free huge page.
bool advise_huge_pages(void* data, std::size_t bytes);
// How many bytes of this process's anonymous memory lie on transparent huge pages now
// (/proc/self/smaps_rollup's AnonHugePages; 0 on Windows); empty where the OS cannot tell.
std::optional<std::uint64_t> anonymous_huge_page_bytes();
// The kernel's transparent huge page mode ("always", "madvise" or "never": the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled); empty where there is none.
std::optional<std::string> transparent_huge_page_mode();
// The bracketed word of such a file's text ("always [madvise] never" -> "madvise"); empty when
// there is none.
std::optional<std::string> bracketed_choice(std::string_view text);

// How many files the process may open, after raising the soft limit towards `wanted` as far as
// the hard limit allows (`ulimit -n` sets both low; only the hard one binds). Windows: `wanted`.
std::uint64_t raise_open_file_limit(std::uint64_t wanted);

// A path that names something other than a regular file where one is needed (a symbolic link
// where links are not followed, a FIFO, a device, a folder). what(): "<path>: is a FIFO ...".
struct NotRegularFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads at most `max_bytes` + 1 bytes of a regular file. A FIFO or device is refused before a
// byte is read (reading one may block forever), and so is a symbolic link unless
// `follow_links`. Throws NotRegularFile, or std::system_error when the OS refuses.
std::string read_regular_file(const std::filesystem::path& file, std::size_t max_bytes,
                              bool follow_links = true);

// A regular file opened for writing without following a symbolic link at its path: a link,
// FIFO or device planted beside an output is refused, never written through. Writes throw
// std::system_error with the OS's reason (ENOSPC, EFBIG, ...).
class WriteFile {
 public:
  enum class Mode { truncate, append, create_new };
  // Throws NotRegularFile, or std::system_error when the OS refuses.
  WriteFile(const std::filesystem::path& file, Mode mode);
  ~WriteFile();
  WriteFile(const WriteFile&) = delete;
  WriteFile& operator=(const WriteFile&) = delete;

  void write(std::string_view text);
  int fd() const { return fd_; }
  void close();  // throws std::system_error when the OS reports a late write error

 private:
  int fd_ = -1;
};

}  // namespace lb::platform
