#include "kernels/openblas/openblas_case.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/openblas/openblas_library.hpp"

namespace lb::openblas {

std::string config_text() { return library().get_config(); }
std::string core_text() { return library().get_corename(); }

int apply_threads(int threads) {
  const Library& blas = library();
  blas.set_num_threads(threads > 0 ? threads : blas.get_num_procs());
  return blas.get_num_threads();
}

namespace {
// What OpenBLAS's blas_memory_alloc mallocs for its GEMM work buffer: 128 MiB + 4 KiB, seen
// with gdb in OpenBLAS 0.3.21 (Debian) under `ulimit -v`. When that malloc fails, that OpenBLAS
// retries it forever at 100% CPU inside cblas_sgemm, where nothing can stop it; so the buffer's
// room is tried here first, and a point that would not get it is out of memory instead.
constexpr std::size_t work_buffer_bytes = (std::size_t{128} << 20) + 4096;
}  // namespace

void GemmCase::check_work_buffer_fits(std::uint64_t memory_limit) {
  void* probe = std::malloc(work_buffer_bytes);
  if (probe == nullptr)
    throw OutOfMemory("OpenBLAS case: no room for OpenBLAS's " + std::to_string(work_buffer_bytes) +
                          "-byte work buffer beside the " + std::to_string(sets_ * set_bytes_) +
                          " bytes of operands",
                      sets_ * set_bytes_ + work_buffer_bytes, memory_limit);
  std::free(probe);
}

GemmCase::GemmCase(const GemmShape& shape, const std::vector<HostTensor>& inputs, CacheMode cache,
                   std::uint64_t memory_limit, int threads)
    : shape_(shape), threads_(threads) {
  const auto& g = shape_;
  elements_[0] = static_cast<std::size_t>(g.batch * g.m * g.k);
  elements_[1] = static_cast<std::size_t>(g.batch * g.k * g.n);
  elements_[2] = static_cast<std::size_t>(g.batch * g.m * g.n);
  std::uint64_t touched_bytes = 0;
  for (int i = 0; i < 3; ++i) {
    offsets_[i] = set_bytes_;
    set_bytes_ += HostArena::round_up(elements_[i] * sizeof(float));
    touched_bytes += elements_[i] * sizeof(float);
  }
  CaseArena allocated =
      allocate_case_arena("OpenBLAS case", cache, touched_bytes, set_bytes_, 0, memory_limit);
  arena_ = std::move(allocated.arena);
  sets_ = allocated.sets;
  check_work_buffer_fits(memory_limit);
  rotation_bytes_ = sets_ * touched_bytes;
  // Canonical layouts are cblas's row-major ones: every set holds the same A and B.
  for (std::size_t set = 0; set < sets_; ++set)
    for (int i = 0; i < 2; ++i)
      std::memcpy(operand(set, i), inputs[static_cast<std::size_t>(i)].data.data(),
                  elements_[i] * sizeof(float));
}

float* GemmCase::operand(std::size_t set, int which) const {
  return reinterpret_cast<float*>(arena_->at(set * set_bytes_ + offsets_[which]));
}

// C[b] = op(A[b]) op(B[b]) for every batch entry, row-major, as lb::GemmShape defines it.
void GemmCase::gemm(std::size_t set) const {
  const auto& g = shape_;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = g.trans_a ? m : k, ldb = g.trans_b ? k : n;
  const float *a = operand(set, 0), *b = operand(set, 1);
  float* c = operand(set, 2);
  const auto sgemm = openblas::library().sgemm;  // the loaded library, not Case::library()
  for (std::int64_t i = 0; i < g.batch; ++i)
    sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
          g.trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a + i * g.m * g.k, lda,
          b + i * g.k * g.n, ldb, 0.0f, c + i * g.m * g.n, n);
}

double GemmCase::run_timed() {
  current_ = (current_ + 1) % sets_;  // cold: the next set, before the clock starts
  apply_threads(threads_);
  const auto start = std::chrono::steady_clock::now();
  gemm(current_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

HostTensor GemmCase::output() {
  const float* c = operand(current_, 2);
  return {{shape_.batch, shape_.m, shape_.n}, std::vector<float>(c, c + elements_[2])};
}

std::string GemmCase::implementation() const {
  const std::string calls = shape_.batch > 1 ? " x" + std::to_string(shape_.batch) : "";
  return "cblas_sgemm" + calls + " (" + core_text() + ")";
}

std::vector<std::pair<std::string, std::string>> GemmCase::notes() const {
  return {{"openblas_config", config_text()},
          {"buffer_sets", std::to_string(sets_)},
          {"rotation_bytes", std::to_string(rotation_bytes_)}};
}

}  // namespace lb::openblas
