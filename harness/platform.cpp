#include "harness/platform.hpp"

#include <cstdlib>

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

}  // namespace lb::platform
