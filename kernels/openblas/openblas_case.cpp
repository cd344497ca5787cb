#include "kernels/openblas/openblas_case.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>

#include "harness/os/platform.hpp"
#include "kernels/openblas/openblas_library.hpp"

namespace lb::openblas {

std::string config_text() { return library().get_config(); }
std::string core_text() { return library().get_corename(); }

namespace {
// What OpenBLAS's blas_memory_alloc mallocs for its GEMM work buffer: 128 MiB + 4 KiB, seen
// with gdb in OpenBLAS 0.3.21 (Debian) under `ulimit -v`. When that malloc fails, that OpenBLAS
// retries it forever at 100% CPU inside cblas_sgemm, where nothing can stop it; so the buffer's
// room is tried here first, and a point that would not get it is out of memory instead.
constexpr std::size_t work_buffer_bytes = (std::size_t{128} << 20) + 4096;

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Each worker thread OpenBLAS starts takes a work buffer as it starts (and retries forever
// without one) and a thread's stack; a process-wide address-space limit must leave room for both.
void require_room_for_workers(int workers) {
  const std::optional<std::uint64_t> limit = platform::address_space_limit();
  if (workers <= 0 || !limit) return;
  const std::uint64_t each = work_buffer_bytes + platform::default_thread_stack_bytes();
  const std::uint64_t needed = static_cast<std::uint64_t>(workers) * each + library_headroom_bytes;
  if (platform::address_space_available(needed)) return;
  throw std::runtime_error(
      "OpenBLAS cannot start " + std::to_string(workers) + " worker thread" +
      (workers > 1 ? "s" : "") + ": each needs " + mib(each) +
      " of address space (its work buffer and stack), which the address-space limit (ulimit -v " +
      std::to_string(*limit >> 10) + " KiB) does not leave; raise the limit (ulimit -v " +
      "unlimited), or run OpenBLAS with --threads 1, or leave it out (--backend onednn)");
}
}  // namespace

int apply_threads(int threads) {
  const Library& blas = library();
  const int wanted = threads > 0 ? threads : blas.get_num_procs();
  require_room_for_workers(wanted - std::max(1, blas.get_num_threads()));
  blas.set_num_threads(wanted);
  return blas.get_num_threads();
}

void GemmCase::check_work_buffer_fits(std::uint64_t operand_bytes, std::uint64_t memory_limit) {
  void* probe = std::malloc(work_buffer_bytes);
  if (probe == nullptr)
    throw OutOfMemory("OpenBLAS case: no room for OpenBLAS's " + std::to_string(work_buffer_bytes) +
                          "-byte work buffer beside the " + std::to_string(operand_bytes) +
                          " bytes of operands",
                      operand_bytes + work_buffer_bytes, memory_limit);
  std::free(probe);
}

GemmCase::GemmCase(const GemmShape& shape, const std::vector<HostTensor>& inputs, CacheMode cache,
                   std::uint64_t memory_limit, int threads)
    : shape_(shape), threads_(threads), eviction_(cache) {
  const auto& g = shape_;
  elements_[0] = static_cast<std::size_t>(g.batch * g.m * g.k);
  elements_[1] = static_cast<std::size_t>(g.batch * g.k * g.n);
  elements_[2] = static_cast<std::size_t>(g.batch * g.m * g.n);
  const OperandLayout layout = lay_out_operands(
      {elements_[0] * sizeof(float), elements_[1] * sizeof(float), elements_[2] * sizeof(float)});
  for (int i = 0; i < 3; ++i) offsets_[i] = layout.offsets[static_cast<std::size_t>(i)];
  const std::uint64_t operand_bytes = layout.bytes;
  arena_ = allocate_case_arena("OpenBLAS case", operand_bytes, memory_limit);
  check_work_buffer_fits(operand_bytes, memory_limit);
  // Canonical layouts are cblas's row-major ones.
  for (int i = 0; i < 2; ++i)
    std::memcpy(operand(i), inputs[static_cast<std::size_t>(i)].data.data(),
                elements_[i] * sizeof(float));
  for (int i = 0; i < 3; ++i) eviction_.add(operand(i), elements_[i] * sizeof(float));
}

float* GemmCase::operand(int which) const {
  return reinterpret_cast<float*>(arena_->at(offsets_[which]));
}

// C[b] = op(A[b]) op(B[b]) for every batch entry, row-major, as lb::GemmShape defines it.
void GemmCase::gemm() const {
  const auto& g = shape_;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = g.trans_a ? m : k, ldb = g.trans_b ? k : n;
  const float *a = operand(0), *b = operand(1);
  float* c = operand(2);
  const auto sgemm = openblas::library().sgemm;  // the loaded library, not Case::library()
  for (std::int64_t i = 0; i < g.batch; ++i)
    sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
          g.trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a + i * g.m * g.k, lda,
          b + i * g.k * g.n, ldb, 0.0f, c + i * g.m * g.n, n);
}

double GemmCase::run_timed() {
  eviction_.evict();  // cold: the operands come from memory, evicted before the clock starts
  apply_threads(threads_);
  const auto start = std::chrono::steady_clock::now();
  gemm();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

HostTensor GemmCase::output() {
  const float* c = operand(2);
  return {{shape_.batch, shape_.m, shape_.n}, std::vector<float>(c, c + elements_[2])};
}

std::string GemmCase::implementation() const {
  const std::string calls = shape_.batch > 1 ? " x" + std::to_string(shape_.batch) : "";
  return "cblas_sgemm" + calls + " (" + core_text() + ")";
}

std::vector<std::pair<std::string, std::string>> GemmCase::notes() const {
  return {{"openblas_config", config_text()},
          {"evicted_bytes", std::to_string(eviction_.bytes())},
          {"page_offsets",
           page_offsets_note({{"a", operand(0)}, {"b", operand(1)}, {"c", operand(2)}})},
          {"pages", pages_note(arena_->bytes(), arena_->bytes_on_huge_pages())}};
}

}  // namespace lb::openblas
