#include "harness/measure/host_buffers.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <utility>

#include "harness/platform.hpp"

namespace lb {

void require_library_headroom(const std::string& who) {
  if (!platform::address_space_available(library_headroom_bytes))
    throw OutOfMemory(who + ": less than " + std::to_string(library_headroom_bytes >> 20) +
                          " MiB of address space left for the libraries' own allocations",
                      0, 0);
}

namespace {
// The memory of the last arena released, kept for the next one that fits in it. A cold case's
// rotation is twice the last-level cache (about 1 GiB where the OS reports 480 MiB), and a fresh
// allocation of it pays a page fault per 4 KiB page as the case fills it: on the 2-core test
// machine that preparation took 1.5 s a point, most of the quick suite's time. A kept block's
// pages are already mapped. One block: a larger request frees it first, so the process never
// holds more than the largest case needs.
struct KeptBlock {
  std::mutex mutex;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
};
KeptBlock& kept_block() {
  static KeptBlock kept;
  return kept;
}
}  // namespace

HostArena::HostArena(std::size_t bytes) : bytes_(bytes) {
  KeptBlock& kept = kept_block();
  {
    const std::lock_guard<std::mutex> lock(kept.mutex);
    if (kept.data && kept.bytes >= bytes) {
      data_ = std::exchange(kept.data, nullptr);
      bytes_ = std::exchange(kept.bytes, 0);
      return;
    }
    if (kept.data)
      ::operator delete (std::exchange(kept.data, nullptr), std::align_val_t{alignment});
    kept.bytes = 0;
  }
  // An eighth more than asked: the next cold case's rotation is about as large but rarely
  // exactly, and would otherwise find the kept block a little short.
  bytes_ = bytes + bytes / 8;
  data_ = static_cast<std::byte*>(::operator new (bytes_, std::align_val_t{alignment}));
}

HostArena::~HostArena() {
  KeptBlock& kept = kept_block();
  const std::lock_guard<std::mutex> lock(kept.mutex);
  if (kept.bytes < bytes_) std::swap(kept.data, data_), std::swap(kept.bytes, bytes_);
  if (data_) ::operator delete (data_, std::align_val_t{alignment});
}

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
