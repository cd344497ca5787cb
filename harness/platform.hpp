#pragma once
// The small platform layer: everything OS-specific (dynamic loading, executable location,
// CPU feature detection) lives behind these functions so the rest stays portable C++.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace lb::platform {

bool is_windows();

// The running executable's path (/proc/self/exe on Linux, GetModuleFileName on Windows).
std::filesystem::path executable_path();

// Dynamic loading without linking: used to probe the NVIDIA driver and libraries that may be
// absent. load_library returns nullptr and fills `error` with the loader's message on failure.
void* load_library(const std::string& name, std::string& error);
void* find_symbol(void* library, const char* symbol);
// The file a loaded library came from, where the OS can tell.
std::string library_path(void* library, const char* any_symbol);

// Value of an environment variable; empty optional when unset (set-but-empty is "").
std::optional<std::string> getenv_opt(const char* name);

// Size of the largest (last-level) CPU cache one core uses, in bytes; 0 when the OS cannot
// tell. Used to size the buffer rotation that makes CPU benchmark runs cache-cold.
std::uint64_t last_level_cache_bytes();

}  // namespace lb::platform
