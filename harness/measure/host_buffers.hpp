#pragma once
// Host memory for CPU backends' cases: one aligned allocation holding every buffer set, and how
// many sets make each run cache-cold (docs/measuring.md, "Caches"). Shared by every CPU backend
// so their cold modes are the same rotation.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/backend.hpp"

namespace lb {

// Address space left free for the libraries' own small allocations beyond a point's buffers.
// oneDNN 3.2 does not survive a failed one: its objects' operator new returns null, which C++
// then constructs on (SIGSEGV in dnnl_memory's constructor under `ulimit -v`). 32 MiB is a chosen
// margin: glibc's main arena grows in 1 MiB mappings once brk fails, oneDNN's JIT kernels take
// pages each; 128 MiB (a new thread arena's reservation) left no point of the tiny model room
// under `ulimit -v 1000000`, where the process alone takes about 860 MiB.
inline constexpr std::uint64_t library_headroom_bytes = 32ull << 20;
// Throws OutOfMemory naming `who` when less than library_headroom_bytes of address space is left.
void require_library_headroom(const std::string& who);

// One 64-byte aligned allocation; throws std::bad_alloc when the host has no room.
// One 64-byte aligned allocation; throws std::bad_alloc when the host has no room. The memory
// of the largest arena released is kept for the next one that fits (host_buffers.cpp says why):
// its bytes are then whatever the last case left there, never zeroes.
class HostArena {
 public:
  explicit HostArena(std::size_t bytes);
  ~HostArena();
  HostArena(const HostArena&) = delete;
  HostArena& operator=(const HostArena&) = delete;
  std::byte* at(std::size_t offset) const { return data_ + offset; }
  static constexpr std::size_t alignment = 64;
  static std::size_t round_up(std::size_t n) { return (n + alignment - 1) / alignment * alignment; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;  // what data_ holds: at least what was asked
};

// Rotation of buffer sets that makes every run cache-cold: enough sets that one rotation touches
// twice the last-level cache. A set that alone is that large needs no second one: by the end of
// a run the cache holds only its last-touched part, and each run starts at its beginning. At
// most max_cold_sets (tiny problems), and no more than fit the memory limit (0: no limit). When
// the OS cannot tell the cache size, 256 MiB is assumed: an over-estimate errs towards colder.
//   touched_bytes: what one run reads and writes; set_bytes: what a set occupies (aligned);
//   fixed_bytes: memory shared by every set (e.g. a scratchpad).
inline constexpr std::uint64_t max_cold_sets = 4096;
inline constexpr std::uint64_t assumed_llc_bytes = 256ull << 20;
std::size_t cold_set_count(std::uint64_t touched_bytes, std::uint64_t set_bytes,
                           std::uint64_t fixed_bytes, std::uint64_t memory_limit);

// A CPU case's buffer sets in one arena: as many sets as its cache mode needs (cold_set_count;
// one when warm), then `fixed_bytes` (64-byte aligned) after them. Throws OutOfMemory when that
// exceeds the memory limit (0: none), the host cannot allocate it or it leaves less than the
// library headroom; `who` ("oneDNN case") names the case in the message.
struct CaseArena {
  std::unique_ptr<HostArena> arena;
  std::size_t sets = 1;
  std::uint64_t fixed_offset = 0;  // where fixed_bytes start: after the last set
};
CaseArena allocate_case_arena(const std::string& who, CacheMode cache, std::uint64_t touched_bytes,
                              std::uint64_t set_bytes, std::uint64_t fixed_bytes,
                              std::uint64_t memory_limit);

}  // namespace lb
