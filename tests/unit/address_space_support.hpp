#pragma once
// For tests that run a child under an address-space limit (RLIMIT_AS): whether this build can,
// and what the process uses now, to set the limit just above it.
#include <cstddef>
#include <fstream>

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define LB_CAN_LIMIT_ADDRESS_SPACE 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#undef LB_CAN_LIMIT_ADDRESS_SPACE
#endif
#endif

#ifdef LB_CAN_LIMIT_ADDRESS_SPACE
#include <sys/resource.h>
#include <unistd.h>

namespace lb {

// The process's address space in use now, from /proc/self/statm (pages).
inline std::size_t address_space_in_use() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Limits this process's address space to what it uses now plus `room` bytes; false when refused.
inline bool limit_address_space_to_in_use_plus(std::size_t room) {
  const rlimit limit{address_space_in_use() + room, RLIM_INFINITY};
  return setrlimit(RLIMIT_AS, &limit) == 0;
}

}  // namespace lb
#endif
