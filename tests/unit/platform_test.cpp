// The platform layer against what the OS itself reports, where it reports it.
#include "harness/os/platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "tests/unit/address_space_support.hpp"

namespace lb::platform {
namespace {

// The kernel's CPU flags (Linux /proc/cpuinfo). The kernel lists a flag only when both the CPU
// and the kernel support it, which is what cpu_features() checks with CPUID and XGETBV.
std::set<std::string> proc_cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(Platform, CpuFeaturesAgreeWithTheKernel) {
  const auto flags = proc_cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line on this OS";
  const CpuFeatures f = cpu_features();
  EXPECT_EQ(f.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(f.fma, flags.count("fma") == 1);
  EXPECT_EQ(f.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(f.avx512_bf16, flags.count("avx512_bf16") == 1);
  EXPECT_EQ(f.avx512_fp16, flags.count("avx512_fp16") == 1);
  EXPECT_EQ(f.amx, flags.count("amx_tile") == 1 && flags.count("amx_bf16") == 1);
}

TEST(Platform, CpuTopology) {
  const CpuFeatures f = cpu_features();
  EXPECT_GT(f.threads, 0);
  EXPECT_GE(f.cores, 0);
  EXPECT_LE(f.cores, f.threads);
  EXPECT_FALSE(f.model.empty());
}

TEST(Platform, DriverLibraryNamesPerOs) {
  EXPECT_STREQ(nvidia_driver_library(), is_windows() ? "nvcuda.dll" : "libcuda.so.1");
  EXPECT_STREQ(nvml_library(), is_windows() ? "nvml.dll" : "libnvidia-ml.so.1");
}

TEST(Platform, MissingLibraryReportsTheLoaderError) {
  std::string error;
  EXPECT_EQ(load_library("liblayerbench_no_such_library.so.7", error), nullptr);
  EXPECT_NE(error.find("liblayerbench_no_such_library"), std::string::npos) << error;
}

TEST(Platform, ModulePathOfCodeInThisExecutable) {
  const std::string path = module_path_of(reinterpret_cast<const void*>(&cpu_features));
  EXPECT_EQ(std::filesystem::path(path).filename(), executable_path().filename());
}

// A reservation of 1 MiB fits any process; 2^62 bytes exceeds every x86-64 or ARM64 address space.
TEST(Platform, BracketedChoiceIsTheKernelsSelectedMode) {
  EXPECT_EQ(platform::bracketed_choice("always [madvise] never"), "madvise");
  EXPECT_EQ(platform::bracketed_choice("[always] madvise never\n"), "always");
  EXPECT_EQ(platform::bracketed_choice("always madvise never"), std::nullopt);
  EXPECT_EQ(platform::bracketed_choice("always [madvise"), std::nullopt);
}

TEST(Platform, AddressSpaceAvailableReservesAndReleases) {
  EXPECT_TRUE(address_space_available(1ull << 20));
  EXPECT_FALSE(address_space_available(1ull << 62));
}

}  // namespace
}  // namespace lb::platform

// What the cold mode relies on: an evicted buffer is read from memory, slower than from the
// caches. 128 KiB in a shuffled chain of reads, the fastest of 31 tries, so that neither the
// prefetchers nor shared caches hide it (docs/measuring.md, "Caches", has the measurements).
TEST(Platform, EvictedBytesAreReadFromMemory) {
  if (!lb::platform::can_evict_from_caches())
    GTEST_SKIP() << "this build evicts cache lines on x86 only";
  constexpr std::size_t per_line = 64 / sizeof(std::uint64_t);
  std::vector<std::uint64_t> buffer((128u << 10) / sizeof(std::uint64_t), 1);
  const std::size_t lines = buffer.size() / per_line;
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(7));
  for (std::size_t i = 0; i < lines; ++i)  // each line's first word: where the cycle goes next
    buffer[order[i] * per_line] = order[(i + 1) % lines] * per_line;
  volatile std::uint64_t sink = 0;
  const auto read_seconds = [&] {
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < lines; ++i) at = buffer[at];
    sink = sink + at;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double evicted = 1e9, cached = 1e9;
  for (int i = 0; i < 31; ++i) {
    lb::platform::evict_from_caches(buffer.data(), buffer.size() * sizeof(std::uint64_t));
    evicted = std::min(evicted, read_seconds());
    cached = std::min(cached, read_seconds());
  }
  EXPECT_GT(evicted, 1.5 * cached)
      << "evicted " << evicted * 1e3 << " ms, cached " << cached * 1e3 << " ms";
  lb::platform::evict_from_caches(buffer.data() + 1, 3);  // a range inside one line, unaligned
  lb::platform::evict_from_caches(buffer.data(), 0);
  EXPECT_EQ(buffer[1], 1u);  // eviction writes back; it never loses data
}

#ifdef __linux__
// Two busy threads held to one core: each waits on the run queue while the other runs, which
// the reading must show (the pre-emption check's direct signal), with CPU time still counted.
TEST(Platform, ProcessCpuUsageSeesThreadsWaitingForACore) {
  const lb::platform::CpuUsage before = lb::platform::process_cpu_usage();
  if (before.run_queue_wait_s < 0) GTEST_SKIP() << "this kernel gives no schedstat run delay";
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &all)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // threads made now inherit it
  // The other thread spins until the reading is taken: a thread that has ended is gone from
  // /proc/self/task, and its wait with it (the compute threads measured are a live pool).
  std::atomic<bool> read{false};
  std::thread other([&read] {
    while (!read.load()) {
    }
  });
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  while (std::chrono::steady_clock::now() < end) {
  }
  const lb::platform::CpuUsage after = lb::platform::process_cpu_usage();
  read = true;
  other.join();
  sched_setaffinity(0, sizeof all, &all);
  // Over 200 ms of sharing one core, each thread waits about half: at least 50 ms together.
  // A spinning thread is always either running or waiting, so CPU time and wait add up to the
  // two threads' wall time, 0.4 s, however busy the machine (other programs only move time from
  // the one to the other).
  const double cpu = after.cpu_s - before.cpu_s,
               wait = after.run_queue_wait_s - before.run_queue_wait_s;
  EXPECT_GT(wait, 0.05);
  EXPECT_GT(cpu + wait, 0.3) << "cpu " << cpu << " s, wait " << wait << " s";
}
#endif

#ifdef __linux__
// The index counts the processors the calling thread may use, wrapping past the last; a negative
// one binds nothing. Each binding on a thread of its own, as the canary's are: a bound thread
// may use only its one processor.
TEST(Platform, PinThisThreadBindsTheIndexthAllowedProcessorAndWraps) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  EXPECT_FALSE(lb::platform::pin_this_thread(-1));
  for (int index : {0, int(cpus.size()) + 1}) {
    cpu_set_t now;
    CPU_ZERO(&now);
    bool pinned = false;
    std::thread([&] {
      pinned = lb::platform::pin_this_thread(index);
      pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    }).join();
    ASSERT_TRUE(pinned) << index;
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(cpus[std::size_t(index) % cpus.size()], &now)) << index;
  }
}
#endif

#if defined(LB_CAN_LIMIT_ADDRESS_SPACE) && defined(__GLIBC__)
// In a child, under a 1 GiB address-space limit or none: exits with the number of heaps glibc
// holds (malloc_info's <heap> entries) after a second thread has allocated, or over 100 when the
// call's answer does not match the limit.
namespace {
[[noreturn]] void heaps_after_a_thread_allocates(bool limited) {
  if (limited && !lb::limit_address_space_to_in_use_plus(std::size_t{1} << 30)) std::_Exit(100);
  if (lb::platform::share_one_heap_under_address_limit() != limited) std::_Exit(101);
  std::thread([] { std::free(std::malloc(100)); }).join();
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (!out || malloc_info(0, out) != 0) std::_Exit(102);
  std::fclose(out);
  int heaps = 0;
  for (const char* at = text; (at = std::strstr(at, "<heap nr=")); ++at) ++heaps;
  std::_Exit(heaps);
}
}  // namespace

TEST(PlatformDeathTest, UnderAnAddressLimitEveryThreadAllocatesFromTheMainHeap) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(heaps_after_a_thread_allocates(true), testing::ExitedWithCode(1), "");
  // Without a limit the thread gets a heap of its own: what the call prevents.
  if (!lb::platform::address_space_limit())
    EXPECT_EXIT(heaps_after_a_thread_allocates(false), testing::ExitedWithCode(2), "");
}
#endif
