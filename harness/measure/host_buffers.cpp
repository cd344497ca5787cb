#include "harness/measure/host_buffers.hpp"

#include <mutex>
#include <new>
#include <vector>

#include "harness/platform.hpp"

namespace lb {

void require_library_headroom(const std::string& who) {
  if (!platform::address_space_available(library_headroom_bytes))
    throw OutOfMemory(who + ": less than " + std::to_string(library_headroom_bytes >> 20) +
                          " MiB of address space left for the libraries' own allocations",
                      0, 0);
}

namespace {
// The memory of released arenas, kept for the next ones that fit: a fresh allocation pays a page
// fault per 4 KiB page as the case fills it, every round prepares each point's case again, and
// autotuning holds one case per candidate at once (up to 9, about 40 MB each for a batch-8
// ResNet-50 convolution). At most kept_bytes_cap in all, the oldest released freed first.
constexpr std::size_t kept_bytes_cap = std::size_t{512} << 20;

struct KeptBlock {
  std::byte* data;
  std::size_t bytes;
};

struct KeptBlocks {
  std::mutex mutex;
  std::vector<KeptBlock> blocks;  // in the order released
  std::size_t bytes = 0;

  // The smallest kept block of at least `wanted` bytes, taken out; none: {nullptr, 0}.
  KeptBlock take(std::size_t wanted) {
    const std::lock_guard<std::mutex> lock(mutex);
    auto best = blocks.end();
    for (auto it = blocks.begin(); it != blocks.end(); ++it)
      if (it->bytes >= wanted && (best == blocks.end() || it->bytes < best->bytes)) best = it;
    if (best == blocks.end()) return {nullptr, 0};
    const KeptBlock block = *best;
    blocks.erase(best);
    bytes -= block.bytes;
    return block;
  }

  void keep(KeptBlock block) {
    const std::lock_guard<std::mutex> lock(mutex);
    blocks.push_back(block);
    bytes += block.bytes;
    while (bytes > kept_bytes_cap) {
      release(blocks.front());
      bytes -= blocks.front().bytes;
      blocks.erase(blocks.begin());
    }
  }

  void release_all() {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const KeptBlock& block : blocks) release(block);
    blocks.clear();
    bytes = 0;
  }

  static void release(const KeptBlock& block) {
    ::operator delete (block.data, std::align_val_t{HostArena::alignment});
  }
};

// Never destroyed: an arena released while statics are destroyed still finds it, and its blocks
// stay reachable to the end (a leak checker then reports none).
KeptBlocks& kept_blocks() {
  static KeptBlocks& kept = *new KeptBlocks;
  return kept;
}

std::byte* allocate_mapped(std::size_t bytes) {
  std::byte* data = nullptr;
  try {
    data = static_cast<std::byte*>(::operator new (bytes, std::align_val_t{HostArena::alignment}));
  } catch (const std::bad_alloc&) {
    kept_blocks().release_all();  // the kept memory is the first to give up
    data = static_cast<std::byte*>(::operator new (bytes, std::align_val_t{HostArena::alignment}));
  }
  // A write to each page maps it now. Left to the case, a page it reads first (an output's
  // eviction before the first run) maps the shared zero page, and the write after it faults
  // again and flushes that address from every core's TLB, an interrupt to each.
  for (std::size_t offset = 0; offset < bytes; offset += page_bytes) data[offset] = std::byte{0};
  return data;
}
}  // namespace

HostArena::HostArena(std::size_t bytes) {
  if (const KeptBlock kept = kept_blocks().take(bytes); kept.data) {
    data_ = kept.data;
    bytes_ = kept.bytes;
    return;
  }
  // An eighth more than asked: the next point of a batch sweep is about as large but rarely
  // exactly, and would otherwise find no kept block quite large enough.
  bytes_ = bytes + bytes / 8;
  data_ = allocate_mapped(bytes_);
}

HostArena::~HostArena() { kept_blocks().keep({data_, bytes_}); }

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
  // Kept memory is the first to give up the libraries' headroom too.
  if (!platform::address_space_available(library_headroom_bytes)) kept_blocks().release_all();
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
