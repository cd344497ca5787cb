#include "harness/measure/host_buffers.hpp"

#include <algorithm>
#include <new>

#include "harness/platform.hpp"

namespace lb {

void require_library_headroom(const std::string& who) {
  if (!platform::address_space_available(library_headroom_bytes))
    throw OutOfMemory(who + ": less than " + std::to_string(library_headroom_bytes >> 20) +
                          " MiB of address space left for the libraries' own allocations",
                      0, 0);
}

HostArena::HostArena(std::size_t bytes)
    : data_(static_cast<std::byte*>(::operator new (bytes, std::align_val_t{alignment}))) {}

HostArena::~HostArena() { ::operator delete (data_, std::align_val_t{alignment}); }

std::size_t cold_set_count(std::uint64_t touched_bytes, std::uint64_t set_bytes,
                           std::uint64_t fixed_bytes, std::uint64_t memory_limit) {
  std::uint64_t llc = platform::last_level_cache_bytes();
  if (llc == 0) llc = assumed_llc_bytes;
  const std::uint64_t wanted = (2 * llc + touched_bytes - 1) / touched_bytes;
  std::uint64_t sets = std::clamp<std::uint64_t>(wanted, 1, max_cold_sets);
  if (memory_limit > 0 && fixed_bytes + sets * set_bytes > memory_limit)
    sets = std::max<std::uint64_t>(
        1, (memory_limit - std::min(memory_limit, fixed_bytes)) / set_bytes);
  return static_cast<std::size_t>(sets);
}

CaseArena allocate_case_arena(const std::string& who, CacheMode cache, std::uint64_t touched_bytes,
                              std::uint64_t set_bytes, std::uint64_t fixed_bytes,
                              std::uint64_t memory_limit) {
  CaseArena a;
  a.sets = cache == CacheMode::cold
               ? cold_set_count(touched_bytes, set_bytes, fixed_bytes, memory_limit)
               : 1;
  a.fixed_offset = a.sets * set_bytes;
  const std::uint64_t needed = a.fixed_offset + HostArena::round_up(fixed_bytes);
  if (memory_limit > 0 && needed > memory_limit)
    throw OutOfMemory(who + " needs " + std::to_string(needed) + " bytes", needed, memory_limit);
  try {
    a.arena = std::make_unique<HostArena>(needed);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(who + ": host allocation of " + std::to_string(needed) + " bytes failed",
                      needed, memory_limit);
  }
  require_library_headroom(who);
  return a;
}

}  // namespace lb
