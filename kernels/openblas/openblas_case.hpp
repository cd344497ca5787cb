#pragma once
// One prepared OpenBLAS GEMM: its operands in one host arena, each at its own offset within a
// page (harness/measure/operand_layout.hpp), evicted from the caches before each run in cold
// mode as the oneDNN backend's are (harness/measure/host_buffers.hpp), and C = op(A) op(B) per
// batch entry.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"
#include "harness/measure/host_buffers.hpp"

namespace lb::openblas {

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ... Haswell MAX_THREADS=64" and "Haswell": the library's words.
std::string config_text();
std::string core_text();
// Sets OpenBLAS's thread count (0 = every logical processor); returns the count now in effect.
int apply_threads(int threads);

class GemmCase : public Case {
 public:
  // Throws OutOfMemory when the operands do not fit `memory_limit` (0: no limit) or the host.
  GemmCase(const GemmShape& shape, const std::vector<HostTensor>& inputs, CacheMode cache,
           std::uint64_t memory_limit, int threads);

  double run_timed() override;
  HostTensor output() override;
  std::string implementation() const override;
  std::string library() const override { return "openblas"; }
  std::uint64_t workspace_bytes() const override { return 0; }
  std::vector<std::pair<std::string, std::string>> notes() const override;

 private:
  // Throws OutOfMemory when OpenBLAS could not get its work buffer (see the .cpp).
  void check_work_buffer_fits(std::uint64_t operand_bytes, std::uint64_t memory_limit);
  void gemm() const;
  float* operand(int which) const;  // 0: A, 1: B, 2: C

  GemmShape shape_;
  int threads_;
  std::size_t elements_[3];  // A, B, C
  std::size_t offsets_[3];   // within the arena
  OperandEviction eviction_;
  std::unique_ptr<HostArena> arena_;
};

}  // namespace lb::openblas
