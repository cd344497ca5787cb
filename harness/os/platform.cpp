#include "harness/os/platform.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define LB_X86 1
#include <immintrin.h>
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>  // link_map, for dlinfo
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>  // mallopt
#endif
#endif

namespace lb::platform {

bool is_windows() {
#ifdef _WIN32
  return true;
#else
  return false;
#endif
}

std::filesystem::path executable_path() {
#ifdef _WIN32
  wchar_t buffer[MAX_PATH];
  const DWORD n = GetModuleFileNameW(nullptr, buffer, MAX_PATH);
  return std::filesystem::path(std::wstring(buffer, n));
#else
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
#endif
}

void* load_library(const std::string& name, std::string& error) {
#ifdef _WIN32
  HMODULE h = LoadLibraryA(name.c_str());
  if (!h) error = name + ": LoadLibrary failed with error " + std::to_string(GetLastError());
  return reinterpret_cast<void*>(h);
#else
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    error = e ? e : name + ": cannot be loaded";
  }
  return h;
#endif
}

void* find_symbol(void* library, const char* symbol) {
  if (!library) return nullptr;
#ifdef _WIN32
  return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(library), symbol));
#else
  return dlsym(library, symbol);
#endif
}

std::string library_path(void* library) {
#ifdef _WIN32
  char buffer[MAX_PATH];
  const DWORD n = GetModuleFileNameA(reinterpret_cast<HMODULE>(library), buffer, MAX_PATH);
  return std::string(buffer, n);
#else
  link_map* map = nullptr;
  return library && dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name
                                                                                      : "";
#endif
}

std::vector<std::string> library_search_folders() {
  std::vector<std::string> folders;
#ifndef _WIN32
  void* self = dlopen(nullptr, RTLD_NOW);
  Dl_serinfo size{};
  if (!self || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0) return folders;
  const std::unique_ptr<Dl_serinfo, decltype(&std::free)> info(
      static_cast<Dl_serinfo*>(std::malloc(size.dls_size)), &std::free);
  if (!info || dlinfo(self, RTLD_DI_SERINFOSIZE, info.get()) != 0 ||
      dlinfo(self, RTLD_DI_SERINFO, info.get()) != 0)
    return folders;
  for (unsigned i = 0; i < info->dls_cnt; ++i) folders.emplace_back(info->dls_serpath[i].dls_name);
#endif
  return folders;
}

std::optional<std::string> getenv_opt(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

#ifdef LB_X86
namespace {
// 64 bytes on every x86 CPU since the Pentium 4; CLFLUSH's own line size (CPUID leaf 1) says the
// same. A smaller step would only flush a line twice.
constexpr std::size_t x86_cache_line = 64;

bool has_clflushopt() {
#if defined(_MSC_VER)
  int regs[4] = {};
  __cpuidex(regs, 7, 0);
  return (regs[1] >> 23) & 1;
#else
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && ((b >> 23) & 1);
#endif
}

// CLFLUSHOPT flushes lines in parallel, CLFLUSH one after another: far faster (docs/measuring.md,
// "Caches").
#if !defined(_MSC_VER)
__attribute__((target("clflushopt")))
#endif
void flush_lines_unordered(const char* line, const char* end) {
  for (; line < end; line += x86_cache_line) _mm_clflushopt(const_cast<char*>(line));
}
}  // namespace
#endif

bool can_evict_from_caches() {
#ifdef LB_X86
  return true;
#else
  return false;
#endif
}

void evict_from_caches(const void* data, std::size_t bytes) {
#ifdef LB_X86
  if (bytes == 0) return;
  const auto first = reinterpret_cast<std::uintptr_t>(data) & ~(x86_cache_line - 1);
  const char* line = reinterpret_cast<const char*>(first);
  const char* end = static_cast<const char*>(data) + bytes;
  static const bool unordered = has_clflushopt();
  if (unordered) {
    flush_lines_unordered(line, end);
  } else {
    for (; line < end; line += x86_cache_line) _mm_clflush(line);
  }
  _mm_mfence();  // the flushes are done before anything after this call reads memory
#else
  (void)data, (void)bytes;
#endif
}

std::uint64_t last_level_cache_bytes() {
#ifdef _WIN32
  DWORD length = 0;
  GetLogicalProcessorInformation(nullptr, &length);
  using Info = SYSTEM_LOGICAL_PROCESSOR_INFORMATION;
  std::vector<Info> info(length / sizeof(Info) + 1);
  if (!GetLogicalProcessorInformation(info.data(), &length)) return 0;
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < length / sizeof(Info); ++i)
    if (info[i].Relationship == RelationCache && info[i].Cache.Size > largest)
      largest = info[i].Cache.Size;
  return largest;
#else
  // The kernel's cache topology for CPU 0 first: it describes the cache this core actually
  // shares. glibc's sysconf derives the size from CPUID and, on some virtual machines, reports
  // the whole host socket's L3 instead (e.g. 256 MiB where sysfs and lscpu say 32 MiB).
  std::uint64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                       "/size");
    std::uint64_t value = 0;
    std::string unit;
    if (!(file >> value)) continue;
    file >> unit;  // "32768K"
    if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'k')) value <<= 10;
    if (!unit.empty() && unit[0] == 'M') value <<= 20;
    if (value > largest) largest = value;
  }
  if (largest > 0) return largest;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<std::uint64_t>(l3);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) return static_cast<std::uint64_t>(l2);
#endif
  return 0;
#endif
}

namespace {

#ifdef LB_X86
struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs cpuid(unsigned leaf, unsigned subleaf = 0) {
  CpuidRegs r;
#if defined(_MSC_VER)
  int out[4];
  __cpuidex(out, static_cast<int>(leaf), static_cast<int>(subleaf));
  r = {static_cast<unsigned>(out[0]), static_cast<unsigned>(out[1]), static_cast<unsigned>(out[2]),
       static_cast<unsigned>(out[3])};
#else
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
#endif
  return r;
}

// XCR0: which register states the OS saves on a context switch.
unsigned long long xcr0() {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
#endif
}

bool bit(unsigned reg, int n) { return (reg >> n) & 1u; }

void detect_isa(CpuFeatures& f) {
  const unsigned max_leaf = cpuid(0).eax;
  const CpuidRegs l1 = cpuid(1);
  const bool osxsave = bit(l1.ecx, 27);
  const unsigned long long xcr = osxsave ? xcr0() : 0;
  const bool os_avx = (xcr & 0x6) == 0x6;          // XMM and YMM state
  const bool os_avx512 = (xcr & 0xE6) == 0xE6;     // plus opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr & 0x60000) == 0x60000;  // XTILECFG and XTILEDATA
  f.fma = os_avx && bit(l1.ecx, 12);
  if (max_leaf < 7) return;
  const CpuidRegs l7 = cpuid(7, 0);
  f.avx2 = os_avx && bit(l7.ebx, 5);
  f.avx512f = os_avx512 && bit(l7.ebx, 16);
  f.avx512_fp16 = os_avx512 && bit(l7.edx, 23);
  f.amx = os_amx && bit(l7.edx, 24) && bit(l7.edx, 22);  // AMX-TILE and AMX-BF16
  if (l7.eax >= 1) f.avx512_bf16 = os_avx512 && bit(cpuid(7, 1).eax, 5);
}

std::string brand_string() {
  if (cpuid(0x80000000u).eax < 0x80000004u) return "";
  char text[49] = {};
  for (unsigned i = 0; i < 3; ++i) {
    const CpuidRegs r = cpuid(0x80000002u + i);
    std::memcpy(text + 16 * i, &r, 16);
  }
  return text;
}
#endif

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// Physical cores and, on non-x86 Linux, the model name, as the OS reports them.
void os_cpu_topology(CpuFeatures& f) {
#ifdef _WIN32
  DWORD length = 0;
  GetLogicalProcessorInformation(nullptr, &length);
  using Info = SYSTEM_LOGICAL_PROCESSOR_INFORMATION;
  std::vector<Info> info(length / sizeof(Info) + 1);
  if (!GetLogicalProcessorInformation(info.data(), &length)) return;
  for (std::size_t i = 0; i < length / sizeof(Info); ++i)
    if (info[i].Relationship == RelationProcessorCore) ++f.cores;
#else
  // Each (physical id, core id) pair is one physical core; SMT siblings share it.
  std::ifstream file("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string> > cores;
  std::string line, package = "0";
  while (std::getline(file, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "physical id") package = value;
    if (key == "core id") cores.emplace(package, value);
    if (key == "model name" && f.model.empty()) f.model = value;
  }
  f.cores = static_cast<int>(cores.size());
#endif
}

}  // namespace

CpuFeatures cpu_features() {
  CpuFeatures f;
  f.threads = static_cast<int>(std::thread::hardware_concurrency());
#ifdef LB_X86
  detect_isa(f);
  f.model = trim(brand_string());
#endif
  os_cpu_topology(f);
  return f;
}

const char* nvidia_driver_library() { return is_windows() ? "nvcuda.dll" : "libcuda.so.1"; }

const char* nvml_library() { return is_windows() ? "nvml.dll" : "libnvidia-ml.so.1"; }

std::optional<std::string> nvidia_kernel_module_text() {
#ifdef _WIN32
  return std::nullopt;
#else
  std::ifstream file("/proc/driver/nvidia/version");
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
#endif
}

std::vector<SearchFolder> dll_search_folders_before_path() {
#ifdef _WIN32
  std::vector<SearchFolder> folders = {
      {executable_path().parent_path().string(), "application folder"}};
  char buffer[MAX_PATH];
  if (const UINT n = GetSystemDirectoryA(buffer, MAX_PATH); n > 0 && n < MAX_PATH)
    folders.push_back({std::string(buffer, n), "system folder"});
  if (const UINT n = GetWindowsDirectoryA(buffer, MAX_PATH); n > 0 && n < MAX_PATH)
    folders.push_back({std::string(buffer, n), "Windows folder"});
  if (const DWORD n = GetCurrentDirectoryA(MAX_PATH, buffer); n > 0 && n < MAX_PATH)
    folders.push_back({std::string(buffer, n), "current folder"});
  return folders;
#else
  return {};
#endif
}

#ifndef _WIN32
namespace {
// The sum over this process's threads of schedstat's second field (nanoseconds spent runnable
// on a run queue), or -1 when /proc does not tell (no CONFIG_SCHED_INFO). Each thread's file is
// kept open and read again with pread: this runs twice per timed sample.
double threads_run_queue_wait_s() {
  static std::mutex mutex;
  static std::map<std::string, int> files;  // thread id -> its schedstat, open
  const std::lock_guard<std::mutex> lock(mutex);
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return -1;
  std::set<std::string> alive;
  double waited_ns = 0;
  bool any = false;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    const std::string tid = entry->d_name;
    alive.insert(tid);
    auto it = files.find(tid);
    if (it == files.end()) {
      const int fd = open(("/proc/self/task/" + tid + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      it = files.emplace(tid, fd).first;
    }
    char text[96];
    const ssize_t n = pread(it->second, text, sizeof text - 1, 0);
    if (n <= 0) continue;
    text[n] = 0;
    unsigned long long ran_ns = 0, waited = 0;
    if (std::sscanf(text, "%llu %llu", &ran_ns, &waited) == 2) waited_ns += waited, any = true;
  }
  closedir(tasks);
  for (auto it = files.begin(); it != files.end();) {
    if (alive.count(it->first)) {
      ++it;
    } else {
      close(it->second);
      it = files.erase(it);
    }
  }
  return any ? waited_ns * 1e-9 : -1;
}
}  // namespace
#endif

CpuUsage process_cpu_usage() {
  CpuUsage u;
#ifdef _WIN32
  FILETIME created, exited, kernel, user;
  if (GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) {
    const auto ticks = [](const FILETIME& t) {
      return (static_cast<unsigned long long>(t.dwHighDateTime) << 32) | t.dwLowDateTime;
    };
    u.cpu_s = static_cast<double>(ticks(kernel) + ticks(user)) * 1e-7;
  }
#else
  timespec t{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0)
    u.cpu_s = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  rusage r{};
  if (getrusage(RUSAGE_SELF, &r) == 0) u.involuntary_switches = r.ru_nivcsw;
  u.run_queue_wait_s = threads_run_queue_wait_s();
#endif
  return u;
}

std::optional<RunQueue> run_queue() {
  // "0.52 0.58 0.59 3/1234 5678": the fourth field is runnable/total scheduling entities.
  std::ifstream in("/proc/loadavg");
  RunQueue q;
  double five = 0, fifteen = 0;
  char slash = 0;
  if (in >> q.load_average_1m >> five >> fifteen >> q.runnable >> slash && slash == '/') return q;
  return std::nullopt;
}

std::optional<int> own_running_threads() {
  std::error_code ec;
  std::filesystem::directory_iterator tasks("/proc/self/task", ec);
  if (ec) return std::nullopt;
  int running = 0;
  for (const auto& task : tasks) {
    // "tid (comm) S ...": the state follows the last ')' (comm may hold spaces and parentheses).
    std::ifstream in(task.path() / "stat");
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'R') ++running;
  }
  return running;
}

unsigned process_id() {
#ifdef _WIN32
  return static_cast<unsigned>(GetCurrentProcessId());
#else
  return static_cast<unsigned>(getpid());
#endif
}

// Allocation-free: it runs first in threads that must not allocate (canary.cpp says why).
bool pin_this_thread(int index) {
  if (index < 0) return false;
#ifdef _WIN32
  DWORD_PTR process_mask = 0, system_mask = 0;
  if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) return false;
  constexpr int cpus = int(8 * sizeof(DWORD_PTR));
  const auto allowed = [&](int cpu) { return (process_mask & (DWORD_PTR(1) << cpu)) != 0; };
#else
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
  constexpr int cpus = CPU_SETSIZE;
  const auto allowed = [&](int cpu) { return CPU_ISSET(cpu, &set) != 0; };
#endif
  int count = 0;
  for (int cpu = 0; cpu < cpus; ++cpu) count += allowed(cpu) ? 1 : 0;
  if (count == 0) return false;
  int wanted = index % count, cpu = 0;
  for (;; ++cpu)
    if (allowed(cpu) && wanted-- == 0) break;
#ifdef _WIN32
  return SetThreadAffinityMask(GetCurrentThread(), DWORD_PTR(1) << cpu) != 0;
#else
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
#endif
}

std::uint64_t raise_open_file_limit(std::uint64_t wanted) {
#ifdef _WIN32
  return wanted;
#else
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return wanted;  // unknown: assume enough
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur =
        limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, limit.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? wanted : static_cast<std::uint64_t>(limit.rlim_cur);
#endif
}

bool address_space_available(std::uint64_t bytes) {
#ifdef _WIN32
  void* reserved = VirtualAlloc(nullptr, bytes, MEM_RESERVE, PAGE_NOACCESS);
  if (reserved) VirtualFree(reserved, 0, MEM_RELEASE);
  return reserved != nullptr;
#else
  void* reserved =
      mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return false;
  munmap(reserved, bytes);
  return true;
#endif
}

std::optional<std::uint64_t> address_space_limit() {
#ifdef _WIN32
  return std::nullopt;
#else
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(limit.rlim_cur);
#endif
}

bool share_one_heap_under_address_limit() {
#if defined(__GLIBC__)
  return address_space_limit() && mallopt(M_ARENA_MAX, 1) == 1;
#else
  return false;
#endif
}

std::uint64_t default_thread_stack_bytes() {
#if defined(__GLIBC__)
  pthread_attr_t attr;
  std::size_t bytes = 0;
  if (pthread_getattr_default_np(&attr) != 0) return 0;
  pthread_attr_getstacksize(&attr, &bytes);
  pthread_attr_destroy(&attr);
  return bytes;
#else
  return 0;
#endif
}

std::optional<std::string> cpu_frequency_governor() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string governor;
  if (in >> governor) return governor;
  return std::nullopt;
}

bool advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  return madvise(data, bytes, MADV_HUGEPAGE) == 0;
#else
  (void)data, (void)bytes;
  return false;
#endif
}

std::optional<std::uint64_t> anonymous_huge_page_bytes() {
#ifdef _WIN32
  return 0;  // large pages come only from VirtualAlloc(MEM_LARGE_PAGES), which nothing here asks
#else
  std::ifstream in("/proc/self/smaps_rollup");
  std::string field;
  std::uint64_t kib = 0;
  while (in >> field)
    if (field == "AnonHugePages:" && in >> kib) return kib << 10;
  return std::nullopt;
#endif
}

std::optional<std::string> bracketed_choice(std::string_view text) {
  const auto open = text.find('[');
  const auto close = text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(open + 1, close - open - 1));
}

std::optional<std::string> transparent_huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  return bracketed_choice(text);
}

std::string module_path_of(const void* address) {
#ifdef _WIN32
  HMODULE module = nullptr;
  if (!GetModuleHandleExA(
          GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
          static_cast<LPCSTR>(address), &module))
    return "";
  char buffer[MAX_PATH];
  const DWORD n = GetModuleFileNameA(module, buffer, MAX_PATH);
  return std::string(buffer, n);
#else
  Dl_info info{};
  return dladdr(address, &info) && info.dli_fname ? info.dli_fname : "";
#endif
}

std::string utc_now(const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
#ifdef _WIN32
  gmtime_s(&utc, &t);
#else
  gmtime_r(&t, &utc);
#endif
  char buffer[64];
  return std::string(buffer, std::strftime(buffer, sizeof buffer, format, &utc));
}

std::string hostname() {
#ifdef _WIN32
  char buffer[MAX_COMPUTERNAME_LENGTH + 1];
  DWORD n = sizeof buffer;
  return GetComputerNameA(buffer, &n) ? std::string(buffer, n) : "unknown";
#else
  char buffer[256] = {};
  return gethostname(buffer, sizeof buffer - 1) == 0 ? buffer : "unknown";
#endif
}

bool stderr_is_terminal() {
#ifdef _WIN32
  return _isatty(_fileno(stderr));
#else
  return isatty(fileno(stderr));
#endif
}

}  // namespace lb::platform
