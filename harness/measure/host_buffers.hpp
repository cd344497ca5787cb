#pragma once
// Host memory for CPU backends' cases: one page-aligned allocation holding a case's operands
// where lay_out_operands puts them (operand_layout.hpp), and their eviction from the caches that
// makes each run cache-cold (docs/measuring.md, "Caches").
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/measure/operand_layout.hpp"

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

// The transparent huge page of x86-64 Linux: arenas of at least this size start on one and ask
// to lie on them (docs/measuring.md, "Pages").
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// One page-aligned allocation, so that offsets within it are offsets within pages; throws
// std::bad_alloc when the host has no room. One of huge_page_bytes or more is aligned to huge
// pages and asks the OS for them. The memory of released arenas is kept, up to a cap, for the
// next ones that fit (host_buffers.cpp says why): an arena's bytes are whatever the last case
// left there, never guaranteed zeroes.
class HostArena {
 public:
  explicit HostArena(std::size_t bytes);
  ~HostArena();
  HostArena(const HostArena&) = delete;
  HostArena& operator=(const HostArena&) = delete;
  std::byte* at(std::size_t offset) const { return data_ + offset; }
  std::size_t bytes() const { return bytes_; }  // at least what was asked
  // How many of its bytes the OS put on huge pages when they were first written; empty where
  // the OS does not tell.
  std::optional<std::size_t> bytes_on_huge_pages() const { return huge_bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::optional<std::size_t> huge_bytes_;
};

// Runs `first_write`, the first write to new memory, and returns how many bytes the OS put on huge
// pages meanwhile (the growth of the process's AnonHugePages); empty where the OS does not tell.
std::optional<std::size_t> bytes_put_on_huge_pages(const std::function<void()>& first_write);

// An arena's page size as a point's "pages" note says it, from its bytes and those on huge pages:
// "2 MiB", "4 KiB", "2 MiB for 60%, 4 KiB for the rest", or "unknown" where the OS does not tell.
std::string pages_note(std::size_t bytes, std::optional<std::size_t> bytes_on_huge_pages);

// A CPU case's host memory in one arena: its operands, `bytes` in all. Throws OutOfMemory when
// that exceeds the memory limit (0: none), the host cannot allocate it or it leaves less than
// the library headroom; `who` ("oneDNN case") names the case in the message.
std::unique_ptr<HostArena> allocate_case_arena(const std::string& who, std::uint64_t bytes,
                                               std::uint64_t memory_limit);

// How a CPU case makes each timed run cache-cold (docs/measuring.md, "Caches"): the operands a
// run reads and writes are evicted from every cache level just before it, outside the timed
// region, so the run reads them from memory. Warm mode evicts nothing. Shared by every CPU
// backend so that their cold modes are the same.
class OperandEviction {
 public:
  // Throws Unsupported for cold mode where this CPU cannot evict lines (not x86).
  explicit OperandEviction(CacheMode cache);
  void add(const void* data, std::size_t bytes);  // an operand of the timed run
  void evict() const;                             // cold: every operand out of the caches
  std::uint64_t bytes() const { return bytes_; }  // what one eviction flushes; 0 when warm

 private:
  bool cold_;
  std::vector<std::pair<const void*, std::size_t>> operands_;
  std::uint64_t bytes_ = 0;
};

}  // namespace lb
