#include "harness/platform.hpp"

#include <cstdlib>
#include <fstream>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <unistd.h>
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

std::string library_path(void* library, const char* any_symbol) {
#ifdef _WIN32
  char buffer[MAX_PATH];
  const DWORD n = GetModuleFileNameA(reinterpret_cast<HMODULE>(library), buffer, MAX_PATH);
  (void)any_symbol;
  return std::string(buffer, n);
#else
  Dl_info info{};
  void* sym = find_symbol(library, any_symbol);
  return sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "";
#endif
}

std::optional<std::string> getenv_opt(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
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
    std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
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

}  // namespace lb::platform
