// oneDNN's matmul, as the harness runs it, against OpenBLAS's cblas_sgemm on ViT-B/16's FP32
// GEMMs: exit 1 when oneDNN is more than 5% slower on any, 2 without OpenBLAS (how it times:
// docs/measuring.md, "The harness against bare loops").
//   gemm_openblas_bench [--threads N] [--openblas LIBRARY]
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/bare_loop.hpp"
#include "harness/measure/inputs.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/os/platform.hpp"
#include "kernels/onednn/onednn_backend.hpp"

namespace {

struct Shape {
  const char* label;
  lb::GemmShape gemm;
};

// ViT-B/16 at batch 1: 197 tokens, width 768, MLP 3072, 12 heads of 64. Linear layers are
// y = x W^T (trans_b); attention is Q K^T per head (trans_b) and P V (plain).
const Shape shapes[] = {
    {"qkv 768->2304", {1, 197, 2304, 768, false, true}},
    {"proj 768->768", {1, 197, 768, 768, false, true}},
    {"fc1 768->3072", {1, 197, 3072, 768, false, true}},
    {"fc2 3072->768", {1, 197, 768, 3072, false, true}},
    {"attn Q.K^T", {12, 197, 197, 64, false, true}},
    {"attn P.V", {12, 197, 64, 197, false, false}},
};

// The CBLAS interface as the CBLAS standard fixes it (enum values 101 row-major, 111 no
// transpose, 112 transpose; 32-bit integers as in OpenBLAS's default LP64 build).
enum { cblas_row_major = 101, cblas_no_trans = 111, cblas_trans = 112 };
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
using SetThreadsFn = void (*)(int);
using GetThreadsFn = int (*)();
using TextFn = char* (*)();

struct OpenBlas {
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_num_threads = nullptr;
  GetThreadsFn get_num_threads = nullptr;
  TextFn get_config = nullptr;
  TextFn get_corename = nullptr;
  std::string file;
};

// The first library name that loads and has every symbol; empty `sgemm` with the loader's
// messages in `error` otherwise.
OpenBlas load_openblas(const std::vector<std::string>& names, std::string& error) {
  OpenBlas blas;
  for (const auto& name : names) {
    std::string message;
    void* library = lb::platform::load_library(name, message);
    if (!library) {
      error += (error.empty() ? "" : "; ") + message;
      continue;
    }
    using lb::platform::find_symbol;
    blas.sgemm = reinterpret_cast<SgemmFn>(find_symbol(library, "cblas_sgemm"));
    blas.set_num_threads =
        reinterpret_cast<SetThreadsFn>(find_symbol(library, "openblas_set_num_threads"));
    blas.get_num_threads =
        reinterpret_cast<GetThreadsFn>(find_symbol(library, "openblas_get_num_threads"));
    blas.get_config = reinterpret_cast<TextFn>(find_symbol(library, "openblas_get_config"));
    blas.get_corename = reinterpret_cast<TextFn>(find_symbol(library, "openblas_get_corename"));
    if (blas.sgemm && blas.set_num_threads && blas.get_num_threads && blas.get_config &&
        blas.get_corename) {
      blas.file = lb::platform::library_path(library);
      return blas;
    }
    error += (error.empty() ? "" : "; ") + name + ": not OpenBLAS (a symbol is missing)";
    blas = OpenBlas{};
  }
  return blas;
}

// C[b] = op(A[b]) op(B[b]) for every batch entry, row-major, as lb::GemmShape defines it.
void openblas_gemm(const OpenBlas& blas, const lb::GemmShape& g, const float* a, const float* b,
                   float* c) {
  const int lda = static_cast<int>(g.trans_a ? g.m : g.k);
  const int ldb = static_cast<int>(g.trans_b ? g.k : g.n);
  for (std::int64_t i = 0; i < g.batch; ++i)
    blas.sgemm(cblas_row_major, g.trans_a ? cblas_trans : cblas_no_trans,
               g.trans_b ? cblas_trans : cblas_no_trans, static_cast<int>(g.m),
               static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, a + i * g.m * g.k, lda,
               b + i * g.k * g.n, ldb, 0.0f, c + i * g.m * g.n, static_cast<int>(g.n));
}

}  // namespace

// Times one shape through oneDNN and OpenBLAS in alternating rounds, checks that their outputs
// agree and prints a line; returns whether oneDNN took at most 5% more time.
bool compare_shape(const OpenBlas& blas, lb::Backend& backend, const lb::Sampler& sampler,
                   const Shape& shape) {
  constexpr int rounds = 5;
  lb::Problem p;
  p.op = lb::GemmProblem{shape.gemm};
  const auto inputs = lb::make_inputs(p, 1);
  lb::CaseOptions options;
  options.cache = lb::CacheMode::warm;
  auto onednn_case = backend.prepare(p, inputs, options);
  // Blocks of oneDNN runs and of OpenBLAS runs alternate in rounds, so that drifting machine
  // load hits both alike; not run by run, as each library's idle worker threads spin for a
  // while after a call and would slow the other's.
  std::vector<float> c(static_cast<std::size_t>(lb::element_count(lb::tensor_dims(p).output)));
  std::vector<double> onednn_medians, blas_medians;
  for (int round = 0; round < rounds; ++round) {
    onednn_medians.push_back(sampler.measure([&] { return onednn_case->run_timed(); }).median_s);
    blas_medians.push_back(sampler
                               .measure([&] {
                                 return lb::bench::steady_seconds([&] {
                                   openblas_gemm(blas, shape.gemm, inputs[0].data.data(),
                                                 inputs[1].data.data(), c.data());
                                 });
                               })
                               .median_s);
  }
  const double onednn_s = lb::summarize(onednn_medians).median_s;
  const double blas_s = lb::summarize(blas_medians).median_s;

  // Same problem on both sides: the outputs must agree to FP32 rounding.
  const auto ours = onednn_case->output();
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    diff2 += (ours.data[i] - c[i]) * double(ours.data[i] - c[i]), ref2 += double(c[i]) * c[i];
  const double gflop = lb::flop_count(p) * 1e-9;
  const double slower = onednn_s / blas_s - 1;
  std::printf(
      "%-14s %-26s oneDNN %-12s %8.3f ms %6.1f GFLOP/s | OpenBLAS %8.3f ms %6.1f GFLOP/s "
      "| oneDNN %+6.1f%% time | outputs rel diff %.1e\n",
      shape.label, lb::describe(p).c_str(), onednn_case->implementation().c_str(), onednn_s * 1e3,
      gflop / onednn_s, blas_s * 1e3, gflop / blas_s, slower * 100, std::sqrt(diff2 / ref2));
  return slower <= 0.05;
}

int main(int argc, char** argv) {
  int threads = 0;
  // The names OpenBLAS's shared library has on Linux, Windows and macOS.
  std::vector<std::string> library_names{"libopenblas.so.0", "libopenblas.so", "libopenblas.dll",
                                         "openblas.dll", "libopenblas.dylib"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = lb::bench::threads_value("gemm_openblas_bench", argv[++i]);
    } else if (arg == "--openblas" && i + 1 < argc) {
      library_names = {argv[++i]};
    } else {
      std::fprintf(stderr,
                   "gemm_openblas_bench: unknown argument '%s' (usage: [--threads N] "
                   "[--openblas LIBRARY])\n",
                   arg.c_str());
      return 2;
    }
  }
  std::string load_error;
  const OpenBlas blas = load_openblas(library_names, load_error);
  if (!blas.sgemm) {
    std::fprintf(stderr, "gemm_openblas_bench: --openblas: cannot load OpenBLAS: %s\n",
                 load_error.c_str());
    return 2;
  }
  auto backend = lb::onednn::make_backend(threads);
  const int blas_threads =
      threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  blas.set_num_threads(blas_threads);
  std::printf("OpenBLAS %s (core %s, %s), %d threads\n", blas.get_config(), blas.get_corename(),
              blas.file.c_str(), blas.get_num_threads());
  for (const auto& [key, value] : backend->context())
    std::printf("oneDNN %s=%s\n", key.c_str(), value.c_str());

  lb::Sampler sampler;
  sampler.rule.min_time_s = 0.2;
  sampler.rule.max_time_s = 1.0;
  bool within = true;
  for (const auto& shape : shapes) within = compare_shape(blas, *backend, sampler, shape) && within;
  std::printf("%s\n", within ? "oneDNN within 5% of OpenBLAS on every shape"
                             : "oneDNN more than 5% slower than OpenBLAS on some shape");
  return within ? 0 : 1;
}
