#include "harness/measure/host_buffers.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "harness/os/platform.hpp"

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
  std::optional<std::size_t> huge_bytes;
};

// Huge-page alignment for blocks that can hold a huge page: smaller ones would only waste the
// heap around them.
std::align_val_t block_alignment(std::size_t bytes) {
  return std::align_val_t{bytes >= huge_page_bytes ? huge_page_bytes : page_bytes};
}

struct KeptBlocks {
  std::mutex mutex;
  std::vector<KeptBlock> blocks;  // in the order released
  std::size_t bytes = 0;

  // The smallest kept block of at least `wanted` bytes, taken out; none: data nullptr.
  KeptBlock take(std::size_t wanted) {
    const std::lock_guard<std::mutex> lock(mutex);
    auto best = blocks.end();
    for (auto it = blocks.begin(); it != blocks.end(); ++it)
      if (it->bytes >= wanted && (best == blocks.end() || it->bytes < best->bytes)) best = it;
    if (best == blocks.end()) return {nullptr, 0, std::nullopt};
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
    ::operator delete(block.data, block_alignment(block.bytes));
  }
};

// Never destroyed: an arena released while statics are destroyed still finds it, and its blocks
// stay reachable to the end (a leak checker then reports none).
KeptBlocks& kept_blocks() {
  static KeptBlocks& kept = *new KeptBlocks;
  return kept;
}

// A write to each page maps it now. Left to the case, a page it reads first (an output's
// eviction before the first run) maps the shared zero page, and the write after it faults again
// and flushes that address from every core's TLB, an interrupt to each. Huge page by huge page on
// every processor: a VM may back fresh huge pages slowly (docs/measuring.md, "Pages"). The
// caller alone writes them all where no other thread can be started.
void write_each_page(std::byte* data, std::size_t bytes) {
  const std::size_t chunks = (bytes + huge_page_bytes - 1) / huge_page_bytes;
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t chunk; (chunk = next++) < chunks;) {
      const std::size_t end = std::min(bytes, (chunk + 1) * huge_page_bytes);
      for (std::size_t offset = chunk * huge_page_bytes; offset < end; offset += page_bytes)
        data[offset] = std::byte{0};
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>(chunks, std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> started;
  for (std::size_t i = 0; i < helpers; ++i) {
    try {
      started.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& thread : started) thread.join();
}

// A new block, each page written once. Where it can hold huge pages it asks for them first: with
// 4 KiB pages a streaming kernel's time depends on which physical pages the process got
// (docs/measuring.md, "Pages").
KeptBlock allocate_mapped(std::size_t bytes) {
  std::byte* data = nullptr;
  try {
    data = static_cast<std::byte*>(::operator new(bytes, block_alignment(bytes)));
  } catch (const std::bad_alloc&) {
    kept_blocks().release_all();  // the kept memory is the first to give up
    data = static_cast<std::byte*>(::operator new(bytes, block_alignment(bytes)));
  }
  if (bytes >= huge_page_bytes) platform::advise_huge_pages(data, bytes);
  auto huge_bytes = bytes_put_on_huge_pages([&] { write_each_page(data, bytes); });
  if (huge_bytes) huge_bytes = std::min(*huge_bytes, bytes);
  return {data, bytes, huge_bytes};
}
}  // namespace

HostArena::HostArena(std::size_t bytes) {
  KeptBlock block = kept_blocks().take(bytes);
  if (!block.data) {
    // An eighth more than asked: the next point of a batch sweep is about as large but rarely
    // exactly, and would otherwise find no kept block quite large enough. Whole huge pages.
    std::size_t wanted = bytes + bytes / 8;
    if (wanted >= huge_page_bytes)
      wanted = (wanted + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    block = allocate_mapped(wanted);
  }
  data_ = block.data;
  bytes_ = block.bytes;
  huge_bytes_ = block.huge_bytes;
}

HostArena::~HostArena() { kept_blocks().keep({data_, bytes_, huge_bytes_}); }

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

std::optional<std::size_t> bytes_put_on_huge_pages(const std::function<void()>& first_write) {
  const auto before = platform::anonymous_huge_page_bytes();
  first_write();
  const auto after = platform::anonymous_huge_page_bytes();
  if (!before || !after) return std::nullopt;
  return *after - std::min(*before, *after);
}

std::string pages_note(std::size_t bytes, std::optional<std::size_t> bytes_on_huge_pages) {
  if (!bytes_on_huge_pages) return "unknown";
  const std::string huge = std::to_string(huge_page_bytes >> 20) + " MiB";
  if (*bytes_on_huge_pages == 0) return std::to_string(page_bytes >> 10) + " KiB";
  if (*bytes_on_huge_pages >= bytes) return huge;
  return huge + " for " + std::to_string(*bytes_on_huge_pages * 100 / bytes) + "%, " +
         std::to_string(page_bytes >> 10) + " KiB for the rest";
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
