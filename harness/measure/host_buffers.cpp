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
// The memory of the last arena released, kept for the next one that fits in it: a fresh
// allocation pays a page fault per 4 KiB page as the case fills it, and every round prepares
// each point's case again. A kept block's pages are already mapped. One block: a larger request
// frees it first, so the process never holds more than the largest case needs.
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
  // An eighth more than asked: the next point of a batch sweep is about as large but rarely
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

std::unique_ptr<HostArena> allocate_case_arena(const std::string& who, std::uint64_t bytes,
                                               std::uint64_t memory_limit) {
  if (memory_limit > 0 && bytes > memory_limit)
    throw OutOfMemory(who + " needs " + std::to_string(bytes) + " bytes", bytes, memory_limit);
  std::unique_ptr<HostArena> arena;
  try {
    arena = std::make_unique<HostArena>(bytes);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(who + ": host allocation of " + std::to_string(bytes) + " bytes failed",
                      bytes, memory_limit);
  }
  require_library_headroom(who);
  return arena;
}

OperandEviction::OperandEviction(CacheMode cache) : cold_(cache == CacheMode::cold) {
  if (cold_ && !platform::can_evict_from_caches())
    throw Unsupported(
        "cache-cold runs evict the operands from the caches, which this build does only on x86 "
        "CPUs; measure with --warm");
}

void OperandEviction::add(const void* data, std::size_t bytes) {
  if (!cold_) return;
  operands_.emplace_back(data, bytes);
  bytes_ += bytes;
}

void OperandEviction::evict() const {
  for (const auto& [data, bytes] : operands_) platform::evict_from_caches(data, bytes);
}

}  // namespace lb
